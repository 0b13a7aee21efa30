// Benchmark of one pixel-patch correction (tier 5) end to end: a word of a 200-dpi colour JPEG scan
// (test/src/corrections/scan-fixtures.ts; "periodic" → "peridoic"), proposed then applied — recognition
// of the page, the patch, the save, the render comparison and the read-back of the patch — against
// one 300 dpi render of the same page by MuPDF in the same run. Medians of 3; fresh engine caches
// for each run (a cold proposal: its own bytes, so no kept recognition or decoded scan answers; the
// apply reuses the proposal, as in the daemon). Also, after each run: the apply done again without
// the kept proposal (it reads the page's kept recognition and decoded scan, src/ocr/kept-work.ts), and
// a second word of the same page proposed (sharing the page's recognition); the recognitions counted
// (page and line recognitions per part summed over the runs; a proposal's line recognitions and
// pixels read).
import { openPdf, renderPageRgb } from '../src/pdf/mupdf-adapter.ts';
import { applyEdit, proposeEdit, type EditTaskInput } from '../src/corrections/engine.ts';
import { keptProposals } from '../src/corrections/save/kept-proposals.ts';
import { closeRecognisers, recognitionCounts } from '../src/ocr/recognizer.ts';
import { keptWork } from '../src/ocr/kept-work.ts';
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
  const applyRedone: number[] = [];
  const secondWord: number[] = [];
  const counts = { propose: 0, apply_redone: 0, second_word: 0 };
  const lineCounts = { apply_redone: 0, second_word: 0 };
  const proposeCpu: number[] = [];
  const proposeWork = { line_recognitions: 0, recognised_pixels: 0 };
  let outcome = '';
  for (let run = 0; run < RUNS; run++) {
    // A copy with its own bytes: the engine's caches are keyed by content, so each run is cold; and
    // the thread's kept work emptied (its line readings are keyed by pixels, which the copies share).
    keptWork.clear();
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
    const cpu1 = process.cpuUsage();
    const c1 = recognitionCounts();
    const proposal = await proposeEdit(input);
    propose.push(performance.now() - t1);
    const cpu = process.cpuUsage(cpu1);
    proposeCpu.push((cpu.user + cpu.system) / 1000);
    const c1After = recognitionCounts();
    counts.propose += c1After.page - c1.page;
    proposeWork.line_recognitions = c1After.line - c1.line;
    proposeWork.recognised_pixels = c1After.pixels - c1.pixels;
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
    // Not part of the cold figures: the same page again, reading what the proposal kept.
    keptProposals.length = 0;
    const c2 = recognitionCounts();
    const t3 = performance.now();
    await applyEdit(input);
    applyRedone.push(performance.now() - t3);
    counts.apply_redone += recognitionCounts().page - c2.page;
    lineCounts.apply_redone += recognitionCounts().line - c2.line;
    const second = {
      ...input,
      request: {
        ...input.request,
        target: { method: 'ocr' as const, find: 'contract', match_index: 0, confirmed: false },
        replacement: 'contarct',
      },
    };
    const c3 = recognitionCounts();
    const t4 = performance.now();
    await proposeEdit(second);
    secondWord.push(performance.now() - t4);
    counts.second_word += recognitionCounts().page - c3.page;
    lineCounts.second_word += recognitionCounts().line - c3.line;
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
    // CPU of both threads (this one and the recogniser's), which a loaded machine inflates less than wall time.
    propose_cpu_ms: proposeCpu.length ? Math.round(median(proposeCpu)) : null,
    propose_work: proposeWork,
    apply_redone_ms: applyRedone.length ? Math.round(median(applyRedone)) : null,
    second_word_propose_ms: secondWord.length ? Math.round(median(secondWord)) : null,
    page_recognitions: counts,
    // Line read-backs summed over the runs: the apply done again reads the kept ones (same pixels).
    line_recognitions: lineCounts,
  };
}
