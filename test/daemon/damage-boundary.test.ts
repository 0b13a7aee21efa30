// Whose fault is a failure? At the correction tasks' boundary (src/corrections/tasks.ts), through a
// real engine slot: a damaged file is a refusal `damaged_document` naming the damage and how to
// repair it (propose), `edit_refused` with the same advice (apply); a fault of the service on an
// undamaged file is `internal_error` with a generic message, its stack in the log only — and the
// corrections route turns that into a generic `edit_failed`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineSlots } from '../../daemon/engine-slots.ts';
import { DocfixError } from '../../src/errors.ts';
import { CORPUS_DIR } from './harness.ts';
import { mutate, seededRandom } from './fuzz-mutate.ts';

const logged: string[] = [];
const engine = new EngineSlots({ slots: 1, queue: 4, timeoutMs: 60_000, log: (m) => logged.push(m) });
const manifest = {
  document_id: 'doc_x',
  original_sha256: '0'.repeat(64),
  standing: [],
  engine_version: 'test',
  renderer: 'test',
  dpi: 300,
};
const request = {
  target: { method: 'text_layer' as const, find: 'before', match_index: 0 },
  replacement: 'befroe',
  page_index: 0,
  font_attempt: 0,
  attestation_id: 'att_x',
};
const SOUND = 'autocad-rotate270.pdf';

/** autocad-rotate270.pdf with the `endstream` of its page's content stream deleted (found by fuzzing). */
async function damaged(): Promise<Uint8Array> {
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, SOUND)));
  const at = 16559;
  assert.is(Buffer.from(pdf.subarray(at, at + 9)).toString('latin1'), 'endstream');
  return Buffer.concat([
    Buffer.from(pdf.subarray(0, at)),
    Buffer.from(pdf.subarray(at + 'endstream'.length)),
  ]);
}

test.after(async () => {
  await engine.close();
});

test('a damaged file: the proposal is a refusal naming the damage; apply refuses with that advice', async () => {
  const pdf = await damaged();
  const proposal = await engine.run('proposeEdit', { pdf, password: '', request, manifest });
  assert.is(proposal.tier, -1);
  assert.is(proposal.advice?.code, 'damaged_document');
  assert.is(
    proposal.refusal,
    'The document is damaged: the contents of page 1 (object 8 0) are not a stream.',
  );
  assert.ok(
    proposal.advice?.do.some((d) => /qpdf/.test(d)),
    'says how to repair it',
  );
  assert.not.match(JSON.stringify(proposal), /Cannot read properties|reading '_/);
  try {
    await engine.run('applyEdit', { pdf, password: '', request, manifest });
    assert.unreachable('apply of a damaged file is refused');
  } catch (error) {
    assert.instance(error, DocfixError);
    assert.is((error as DocfixError).code, 'edit_refused');
    assert.is(((error as DocfixError).extra.advice as { code: string }).code, 'damaged_document');
  }
});

test('a fault of the service on a sound file: a generic answer, the stack in the log', async () => {
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, SOUND)));
  const sound = await engine.run('proposeEdit', { pdf, password: '', request, manifest });
  assert.is(sound.tier, 1, 'the sound file is corrected: the damage, not the request, made the refusal');
  logged.length = 0;
  // A request without a target makes the engine itself fail (a TypeError): not the file's doing.
  const broken = { ...request, target: undefined } as unknown as typeof request;
  try {
    await engine.run('proposeEdit', { pdf, password: '', request: broken, manifest });
    assert.unreachable('the fault is not hidden');
  } catch (error) {
    assert.instance(error, DocfixError);
    assert.is((error as DocfixError).code, 'internal_error');
    assert.not.match((error as Error).message, /Cannot read properties/, 'no raw exception text');
  }
  const line = logged.join('\n');
  assert.match(line, /engine task proposeEdit failed: TypeError: Cannot read properties/);
  assert.match(line, /\n\s+at .*engine\.ts:\d+/, 'the stack is logged');
});

test('the seeded mutations reproduce: the same seed gives the same mutant', async () => {
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, 'libreoffice-writer.pdf')));
  const a = mutate(pdf, 'delete_endobj', seededRandom(42));
  const b = mutate(pdf, 'delete_endobj', seededRandom(42));
  assert.equal(Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes)), 0);
  assert.is(a.bytes.length, pdf.length - 'endobj'.length);
});

test.run();
