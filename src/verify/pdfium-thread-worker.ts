// The PDFium thread's side (pdfium-thread.ts): each request rendered with `renderPageWithPdfium`,
// one at a time, the pixels' buffer transferred back; an error sent in its plain form.
import { parentPort } from 'node:worker_threads';
import { DocfixError } from '../errors.ts';
import { renderPageWithPdfium } from './pdfium-render.ts';
import type { ThreadRenderReply, ThreadRenderRequest } from './pdfium-thread.ts';

const port = parentPort;
if (!port) throw new Error('pdfium-thread-worker.ts runs as a worker thread');

port.on('message', (request: ThreadRenderRequest) => {
  void (async () => {
    let reply: ThreadRenderReply;
    try {
      const image = await renderPageWithPdfium(
        request.bytes,
        request.password,
        request.pageIndex,
        request.dpi,
        request.rows,
      );
      reply = { id: request.id, image };
      port.postMessage(reply, [image.pixels.buffer as ArrayBuffer]);
      return;
    } catch (error) {
      reply = {
        id: request.id,
        error: error instanceof DocfixError ? error.toJSON() : null,
        message: (error as Error).message,
      };
    }
    port.postMessage(reply);
  })();
});
