// Pages: preview and crop images, OCR and preflight.
import { Option, type Command } from 'commander';
import { writeFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { EXIT } from '../../src/errors.ts';
import {
  c,
  CliExit,
  dispatch,
  getClient,
  globalOptions,
  info,
  intArg,
  onInterrupt,
  print,
  removeOwnTemporaries,
  printJson,
  success,
  table,
  UsageError,
  withSpinner,
  type GlobalOptions,
} from '../context.ts';
import { formatBox, parseBox, toPixels, toPoints, type PointBox } from '../page-box.ts';
import { LANG_HELP, resolveDocumentId } from '../shared.ts';

export interface PreviewOptions {
  globals: GlobalOptions;
  document: string;
  page: number;
  output?: string;
  revision?: string;
  thumb: boolean;
}
export interface CropOptions {
  globals: GlobalOptions;
  document: string;
  page: number;
  /** Points, x0,y0,x1,y1 from the top-left of the page as displayed. */
  box: PointBox;
  dpi: number;
  output?: string;
  revision?: string;
}
export interface OcrOptions {
  globals: GlobalOptions;
  document: string;
  page: number;
  find: string;
  box?: PointBox;
  dpi?: number;
  lang?: string;
  turn: 0 | 90 | 180 | 270;
  words: boolean;
}
export interface PreflightOptions {
  globals: GlobalOptions;
  document: string;
  page: number;
  box?: PointBox;
  dpi?: number;
  lang?: string;
  turn: 0 | 90 | 180 | 270;
}

const pageOption = () =>
  new Option('-p, --page <index>', 'page index, 0 for the first page').default(0).argParser(intArg('--page'));

/** Writes bytes to a file through a temporary name, or to stdout with "-". */
async function writeBytes(path: string, bytes: Uint8Array): Promise<void> {
  if (path === '-') {
    process.stdout.write(bytes);
    return;
  }
  const temp = `${path}.part-${process.pid}-${Date.now()}`;
  const unhook = onInterrupt(removeOwnTemporaries(dirname(resolve(path))));
  try {
    await writeFile(temp, bytes);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    unhook();
  }
}

export function register(program: Command): void {
  program
    .command('preview')
    .description('Save a low-resolution image of a page (PNG)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addOption(pageOption())
    .option('-o, --output <file>', 'where to write the PNG ("-" for stdout; default DOC-pN.png)')
    .option('--revision <id>', 'a revision other than the current one')
    .option('--thumb', 'a thumbnail')
    .addHelpText('after', '\nExamples:\n  $ docfix preview 3f2a --page 0 -o page.png')
    .action(async (document: string, o: Record<string, unknown>, cmd: Command) => {
      const options: PreviewOptions = {
        globals: globalOptions(cmd),
        document,
        page: o.page as number,
        thumb: Boolean(o.thumb),
        ...(o.output ? { output: o.output as string } : {}),
        ...(o.revision ? { revision: o.revision as string } : {}),
      };
      await dispatch('preview', options, runPreview);
    });

  program
    .command('crop')
    .description('Save native-resolution pixels of a page region (PNG, at most 4 megapixels)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addOption(pageOption())
    .requiredOption(
      '--box <x0,y0,x1,y1>',
      'the region: two corners in points from the top-left, as docfix search prints a box',
      parseBox,
    )
    .addOption(new Option('--dpi <dpi>', 'resolution (0: native)').default(0).argParser(intArg('--dpi')))
    .option('-o, --output <file>', 'where to write the PNG ("-" for stdout; default DOC-pN-crop.png)')
    .option('--revision <id>', 'a revision other than the current one')
    .addHelpText(
      'after',
      `
The box is "x0,y0,x1,y1" in points (1/72 inch) from the page's top-left corner, as docfix search
prints it; x1 > x0 and y1 > y0. Pages are numbered from 0.

Examples:
  $ docfix search 3f2a Invoice          # prints each match's BOX (pt)
  $ docfix crop 3f2a --page 0 --box 72,90.5,160,104 --dpi 600 -o word.png`,
    )
    .action(async (document: string, o: Record<string, unknown>, cmd: Command) => {
      const options: CropOptions = {
        globals: globalOptions(cmd),
        document,
        page: o.page as number,
        box: o.box as CropOptions['box'],
        dpi: o.dpi as number,
        ...(o.output ? { output: o.output as string } : {}),
        ...(o.revision ? { revision: o.revision as string } : {}),
      };
      if (options.dpi > 2400) throw new UsageError('--dpi is at most 2400');
      await dispatch('crop', options, runCrop);
    });

  const turnOption = () =>
    new Option('--turn <degrees>', 'read the page turned by this much')
      .choices(['0', '90', '180', '270'])
      .default('0');

  program
    .command('ocr')
    .description('Recognise the words of a page (or a region) and find text among them')
    .argument('[document]', 'document id, or a unique prefix of it (not with --languages)')
    .addOption(pageOption())
    .option('--find <text>', 'text to find among the words', '')
    .option('--box <x0,y0,x1,y1>', 'only this region (points from the top-left, as search prints)', parseBox)
    .option('--dpi <dpi>', 'recognition resolution (72..1200)', intArg('--dpi', 72))
    .option('--lang <code>', LANG_HELP)
    .addOption(turnOption())
    .option('--words', 'list every word, not only matches')
    .option('--languages', 'list the recognition languages the daemon has, and where each comes from')
    .addHelpText(
      'after',
      `
Without --lang a page is read in the language its catalog (/Lang) or its text layer's letters name,
among the languages there are, else English. Languages: the bundled ones, and tesseract's data on the
daemon's machine (Debian: apt-get install tesseract-ocr-rus; or LANG.traineddata in a folder named
by DOCFIX_TESSDATA_DIRS; TESSDATA_PREFIX).

Examples:
  $ docfix ocr 3f2a --page 0 --find Invoice
  $ docfix ocr 3f2a --page 0 --find работе --lang rus
  $ docfix ocr --languages`,
    )
    .action(async (document: string | undefined, o: Record<string, unknown>, cmd: Command) => {
      if (o.languages) {
        if (document) throw new UsageError('--languages lists the languages: give no document with it');
        return dispatch('ocr-languages', { globals: globalOptions(cmd) }, runOcrLanguages);
      }
      if (!document) throw new UsageError('give a document (or --languages)');
      const options: OcrOptions = {
        globals: globalOptions(cmd),
        document,
        page: o.page as number,
        find: o.find as string,
        turn: Number(o.turn) as OcrOptions['turn'],
        words: Boolean(o.words),
        ...(o.box ? { box: o.box as OcrOptions['box'] } : {}),
        ...(o.dpi ? { dpi: o.dpi as number } : {}),
        ...(o.lang ? { lang: o.lang as string } : {}),
      };
      await dispatch('ocr', options, runOcr);
    });

  program
    .command('preflight')
    .description('Name the words of a page known to refuse correction (one-sided check)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addOption(pageOption())
    .option('--box <x0,y0,x1,y1>', 'only this region (points from the top-left, as search prints)', parseBox)
    .option('--dpi <dpi>', 'recognition resolution (72..1200)', intArg('--dpi', 72))
    .option('--lang <code>', LANG_HELP)
    .addOption(turnOption())
    .addHelpText(
      'after',
      '\nAbsence from the list is not a promise that a correction will work.\n\nExamples:\n  $ docfix preflight 3f2a --page 0',
    )
    .action(async (document: string, o: Record<string, unknown>, cmd: Command) => {
      const options: PreflightOptions = {
        globals: globalOptions(cmd),
        document,
        page: o.page as number,
        turn: Number(o.turn) as PreflightOptions['turn'],
        ...(o.box ? { box: o.box as PreflightOptions['box'] } : {}),
        ...(o.dpi ? { dpi: o.dpi as number } : {}),
        ...(o.lang ? { lang: o.lang as string } : {}),
      };
      await dispatch('preflight', options, runPreflight);
    });
}

export async function runPreview(o: PreviewOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const png = await client.call('pagePreview', {
    params: { document_id: id, page_index: o.page },
    query: { thumb: o.thumb, ...(o.revision ? { revision: o.revision } : {}) },
    retry: true,
  });
  const out = o.output ?? `${id.slice(0, 8)}-p${o.page}.png`;
  await writeBytes(out, png);
  if (o.globals.json && out !== '-')
    return printJson({ document_id: id, page_index: o.page, file: out, bytes: png.length });
  if (out !== '-') success(`Wrote ${out} (${png.length} bytes)`);
}

export async function runCrop(o: CropOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  // The crop route takes 300 dpi render pixels: the pixels covering the box.
  const [x0, y0, x1, y1] = toPixels(o.box);
  const png = await client.call('pageCrop', {
    params: { document_id: id, page_index: o.page },
    query: {
      x: x0,
      y: y0,
      w: x1 - x0,
      h: y1 - y0,
      dpi: o.dpi,
      ...(o.revision ? { revision: o.revision } : {}),
    },
    retry: true,
  });
  const out = o.output ?? `${id.slice(0, 8)}-p${o.page}-crop.png`;
  await writeBytes(out, png);
  if (o.globals.json && out !== '-')
    return printJson({ document_id: id, page_index: o.page, file: out, bytes: png.length });
  if (out !== '-') success(`Wrote ${out} (${png.length} bytes)`);
}

export async function runOcr(o: OcrOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const r = await withSpinner(
    `Recognising page ${o.page}`,
    client.call('ocrPage', {
      params: { document_id: id, page_index: o.page },
      body: {
        find: o.find,
        turn: o.turn,
        // box_render is in pixels at the recognition's resolution.
        ...(o.box ? { box_render: toPixels(o.box, o.dpi ?? 300) } : {}),
        ...(o.dpi ? { render_dpi: o.dpi } : {}),
        ...(o.lang ? { lang: o.lang } : {}),
      },
      retry: true,
    }),
  );
  if (o.globals.json) return printJson(r);
  if (!r.available) {
    info(`${c.yellow('!')} recognition is not available: ${r.message ?? ''}`);
    throw new CliExit(EXIT.error);
  }
  const facts = [r.provider, r.lang, `${r.render_dpi} dpi`, r.word_source].filter(Boolean).join(', ');
  info(c.dim(`${r.word_count} words (${facts})`));
  if (o.find) {
    const matches = r.matches ?? [];
    if (matches.length === 0) info(`No match for "${o.find}".`);
    else
      table(
        matches.map((m) => [
          String(m.index),
          m.text,
          m.confidence.toFixed(0),
          formatBox(toPoints(m.box_render, r.render_dpi)),
          m.needs_confirmation ? c.yellow('needs confirmation') : 'ok',
        ]),
        ['MATCH', 'TEXT', 'CONFIDENCE', 'BOX (pt)', 'STATUS'],
      );
  }
  if (o.words || !o.find) {
    for (const w of r.words ?? [])
      print(
        `${w.line}\t${w.confidence.toFixed(0)}\t${formatBox(toPoints(w.box_render, r.render_dpi))}\t${w.text}`,
      );
  }
}

export async function runOcrLanguages(o: { globals: GlobalOptions }): Promise<void> {
  const client = await getClient(o.globals);
  const r = await client.call('ocrLanguages', { retry: true });
  if (o.globals.json) return printJson(r);
  if (r.languages.length === 0) info('No recognition language is available.');
  else
    table(
      r.languages.map((l) => [l.code, l.source, l.file]),
      ['LANG', 'SOURCE', 'FILE'],
    );
  const missing = r.folders.filter((f) => f.exists === false && f.source === 'configured');
  for (const f of missing)
    info(`${c.yellow('!')} DOCFIX_TESSDATA_DIRS names ${f.folder}, which is not a folder`);
  info(
    c.dim(
      "More: apt-get install tesseract-ocr-LANG on the daemon's machine, or LANG.traineddata in a folder named by DOCFIX_TESSDATA_DIRS (read when the daemon starts).",
    ),
  );
}

export async function runPreflight(o: PreflightOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const r = await withSpinner(
    `Checking page ${o.page}`,
    client.call('preflightPage', {
      params: { document_id: id, page_index: o.page },
      body: {
        turn: o.turn,
        ...(o.box ? { box_render: toPixels(o.box, o.dpi ?? 300) } : {}),
        ...(o.dpi ? { render_dpi: o.dpi } : {}),
        ...(o.lang ? { lang: o.lang } : {}),
      },
      retry: true,
    }),
  );
  if (o.globals.json) return printJson(r);
  if (r.applicable === false) return info(`Not applicable: ${r.message ?? ''}`);
  const regions = r.regions ?? [];
  info(c.dim(`${r.checked ?? 0} words checked, ${r.skipped ?? 0} skipped`));
  if (regions.length === 0) return info('No word on this page is known to refuse (this is not a promise).');
  for (const region of regions) {
    print(
      `${c.yellow('!')} [${formatBox(toPoints(region.box_render, r.render_dpi))}] ${region.what} (${region.code})`,
    );
    if (region.why) print(`    why: ${region.why}`);
    for (const step of region.do ?? []) print(`    do:  ${step}`);
  }
}
