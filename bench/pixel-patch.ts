// Benchmark of one pixel-patch correction (tier 5) end to end: a word of a 200-dpi colour JPEG scan
// (test/src/corrections/scan-fixtures.ts; "periodic" → "peridoic"), proposed then applied — recognition
// of the page, the patch, the save, the render comparison and the read-back of the patch — against
// one 300 dpi render of the same page by MuPDF in the same run. Medians of 3; fresh engine caches
// for each run (a cold proposal; the apply reuses the proposal's recognition, as in the daemon).
import { openPdf, renderPageRgb } from '../src/pdf/mupdf-adapter.ts';
import { applyEdit, proposeEdit, type EditTaskInput } from '../src/corrections/engine.ts';
import { closeRecognisers } from '../src/ocr/recognizer.ts';
import { scannedPage } from '../test/src/corrections/scan-fixtures.ts';

const RUNS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function benchPixelPatch(): Promise<Record<string, unknown>> {
  const bytes = scannedPage(
    [
      'The periodic review of the contract is due',
      'Certificate of the Board, signed and dated',
      'Please return the form with your remarks',
    ],
    { dpi: 200, colour: true, jpeg: 80 },
  );
  const render: number[] = [];
  const propose: number[] = [];
  const apply: number[] = [];
  let outcome = '';
  for (let run = 0; run < RUNS; run++) {
    // A copy with its own bytes: the engine's caches are keyed by content, so each run is cold.
    const pdf = new Uint8Array(bytes.length + 16);
    pdf.set(bytes);
    pdf.set(new TextEncoder().encode(`\n%bench ${run}  \n`), bytes.length);
    const t0 = performance.now();
    const { doc } = openPdf(pdf, '');
    renderPageRgb(doc.loadPage(0), 300);
    doc.destroy();
    render.push(performance.now() - t0);
    const input: EditTaskInput = {
      pdf,
      password: '',
      request: {
        page_index: 0,
        target: { method: 'ocr', find: 'periodic', match_index: 0, confirmed: false },
        replacement: 'peridoic',
        attestation_id: 'att_bench',
      },
      manifest: {
        document_id: 'doc_bench',
        original_sha256: '0'.repeat(64),
        standing: [],
        engine_version: 'bench',
        renderer: 'mupdf',
        dpi: 300,
      },
    };
    const t1 = performance.now();
    const proposal = await proposeEdit(input);
    propose.push(performance.now() - t1);
    if (proposal.refusal) {
      outcome = `refused: ${proposal.advice?.code}`;
      break;
    }
    const t2 = performance.now();
    const applied = await applyEdit(input);
    apply.push(performance.now() - t2);
    outcome = applied.verification.passed
      ? `verified (tier ${proposal.tier}, ${proposal.visibility_cost})`
      : 'unverified';
  }
  await closeRecognisers();
  const r = median(render);
  return {
    file: 'a 400×180 pt page scanned at 200 dpi, colour JPEG q80',
    outcome,
    runs: propose.length,
    render_300dpi_ms: Math.round(r),
    propose_ms: propose.length ? Math.round(median(propose)) : null,
    apply_ms: apply.length ? Math.round(median(apply)) : null,
    propose_over_render: propose.length ? Math.round((median(propose) / r) * 10) / 10 : null,
  };
}
