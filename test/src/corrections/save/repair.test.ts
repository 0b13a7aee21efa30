// Repair in the open (issue 33 item 2): a damaged corpus file (fixtures/make-damaged.ts) is corrected
// at cost `low` with a warning naming the repair; the objects the repair changes are declared with
// their reasons, the apply verifies, the manifest records them, and poppler and qpdf read the result.
// The guard is not weakened: a change the repair did not make is still refused.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { corpusPdf, damaged, fopLike } from '../../../../fixtures/make-damaged.ts';
import { applyEdit, proposeEdit, type EngineVerification } from '../../../../src/corrections/engine.ts';
import { objectsUntouched } from '../../../../src/corrections/proof/object-guard.ts';
import { structuralAdvice } from '../../../../src/corrections/proposal.ts';
import { parseManifest, readManifest } from '../../../../src/corrections/save/manifest.ts';
import { repairDeclarations, repairOf } from '../../../../src/corrections/save/repair.ts';
import { ObjectIndex } from '../../../../src/pdf/xref-index.ts';
import { rederiveProof } from '../../../../src/verify/rederive.ts';
import { editInput } from '../fixtures.ts';
import { pdftotext } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-repair-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function tool(name: string): void {
  if (spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0)
    throw new Error(`${name} is needed by this test (Debian: qpdf, poppler-utils)`);
}

/** qpdf --check's exit status (0 sound, 2 errors, 3 warnings) and its warnings. */
function qpdfCheck(bytes: Uint8Array, name: string): { status: number | null; warnings: string } {
  tool('qpdf');
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const r = spawnSync('qpdf', ['--check', path], { encoding: 'utf8' });
  return { status: r.status, warnings: r.stderr };
}

/** poppler reads the page: its text, and a render (pdftoppm exits 0 and writes a page image). */
function poppler(bytes: Uint8Array, name: string, page = 0): string {
  tool('pdftoppm');
  const path = join(dir, name);
  writeFileSync(path, bytes);
  execFileSync(
    'pdftoppm',
    ['-r', '50', '-f', String(page + 1), '-l', String(page + 1), '-png', path, `${path}-p`],
    {
      stdio: 'ignore',
    },
  );
  return pdftotext(path, page, '');
}

interface RepairFacts {
  cause: string;
  objects: { num: number; changed: string[]; reason: string }[];
}
const repairOfVerification = (v: EngineVerification) =>
  (v.stream_changes as { repair?: RepairFacts; incremental: boolean }).repair;

test('the damaged fixtures are damaged: qpdf warns about each', () => {
  const writer = corpusPdf('libreoffice-writer.pdf');
  assert.is(qpdfCheck(writer, 'sound.pdf').status, 0);
  for (const [name, bytes] of [
    ['no-xref', damaged(writer, { kind: 'no-xref' })],
    ['shifted', damaged(writer, { kind: 'xref-shifted', by: 7 })],
    ['length', damaged(writer, { kind: 'length', object: 5, by: 40 })],
    ['fop', fopLike('libreoffice-writer.pdf', 5, 40)],
  ] as const) {
    const check = qpdfCheck(bytes, `${name}.pdf`);
    assert.is(check.status, 3, `${name}: ${check.warnings}`);
    assert.match(check.warnings, /WARNING/);
  }
});

test('a wrong /Length and no cross-reference table (the FOP file): proposed at cost low, the repair declared object by object', async () => {
  const pdf = fopLike('libreoffice-writer.pdf', 5, 40);
  const input = editInput(pdf, 'nonumy', 'nonmuy');
  const proposal = await proposeEdit(input);
  assert.is(proposal.refusal, null, proposal.explanation);
  assert.is(proposal.tier, 1);
  assert.is(proposal.visibility_cost, 'low');
  const warning = (proposal.warnings ?? []).find((w) => w.includes('saved repaired'));
  assert.ok(warning, (proposal.warnings ?? []).join(' | '));
  assert.match(warning!, /cross-reference table is missing/);
  // Object 5 is the font program whose /Length (object 6) was made 40 bytes too long.
  assert.match(warning!, /object 5 \(\/Length was 6 0 R = 9631, the stream is 9592 bytes/);

  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  const repair = repairOfVerification(verification);
  assert.ok(repair);
  assert.equal(
    repair!.objects.map((o) => o.num),
    [2, 5],
  );
  for (const o of repair!.objects) assert.ok(o.changed.includes('/Length'), JSON.stringify(o));
  // The guard's own record: the repaired objects changed as declared, as repairs.
  const asDeclared = (
    verification.stream_changes as { objects_changed_as_declared: { num: number; kind: string }[] }
  ).objects_changed_as_declared;
  assert.ok(
    asDeclared.some((r) => r.num === 5 && r.kind === 'repair'),
    JSON.stringify(asDeclared),
  );
  assert.ok(verification.guards.find((g) => g.name === 'objects_untouched')?.passed);

  // The manifest inside the file records the repair with the correction.
  const manifest = parseManifest(readManifest(output, '')!);
  const current = manifest.corrections.at(-1)!;
  assert.is(current.visibility_cost, 'low');
  assert.equal(
    current.repaired_objects?.map((o) => o.num),
    [2, 5],
  );
  assert.match(current.repaired_objects![1].reason, /\/Length was 6 0 R = 9631/);

  // Independent readers: the corrected file is sound, reads the new word and renders.
  const check = qpdfCheck(output, 'fop-corrected.pdf');
  assert.is(check.status, 0, check.warnings);
  const text = poppler(output, 'fop-corrected.pdf');
  // The page says “nonumy” twice; the first (match 0) is corrected.
  assert.is(text.split('nonmuy').length - 1, 1, text);
  assert.is(text.split('nonumy').length - 1, 1, text);
});

test('docfix verify re-derives the repair from the damaged original alone and finds it recorded', async () => {
  const pdf = fopLike('libreoffice-writer.pdf', 5, 40);
  const input = editInput(pdf, 'nonumy', 'nonmuy');
  input.manifest = { ...input.manifest, original_sha256: createHash('sha256').update(pdf).digest('hex') };
  const { output } = await applyEdit(input);
  const proof = await rederiveProof(pdf, output);
  assert.ok(proof.passed, proof.failures.join(' | '));
  const repair = proof.checks.find((c) => c.name === 'repair');
  assert.ok(repair?.passed, repair?.detail);
  assert.match(repair!.detail, /changes objects 2, 5, as the manifest records/);
  assert.ok(proof.objects.changed_as_declared.some((o) => o.num === 5 && o.kind === 'repair'));
});

test('offsets that miss their objects: repaired in the open, verified; poppler reads the new word', async () => {
  const pdf = damaged(corpusPdf('libreoffice-writer.pdf'), { kind: 'xref-shifted', by: 7 });
  const input = editInput(pdf, 'dolore', 'dolroe');
  const proposal = await proposeEdit(input);
  assert.is(proposal.visibility_cost, 'low', proposal.explanation);
  assert.ok((proposal.warnings ?? []).some((w) => w.includes('saved repaired')));
  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.ok(repairOfVerification(verification));
  assert.is(qpdfCheck(output, 'shifted-corrected.pdf').status, 0);
  assert.match(poppler(output, 'shifted-corrected.pdf'), /dolroe/);
});

test('a repaired object another page draws from: that page proven by rendering it before and after', async () => {
  // Page 2's content stream (object 22) gets a /Length 5 bytes short, and the table is removed.
  const tcpdf = corpusPdf('standard14-tcpdf.pdf');
  const pdf = damaged(damaged(tcpdf, { kind: 'length', object: 22, by: -5 }), { kind: 'no-xref' });
  const { output, verification } = await applyEdit(editInput(pdf, 'Nicola', 'Nicloa'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.equal(
    repairOfVerification(verification)!.objects.map((o) => o.num),
    [22],
  );
  assert.match(repairOfVerification(verification)!.objects[0].reason, /\/Length was 3760/);
  const page2 = verification.pages.find((p) => p.page_index === 1)!;
  assert.is(page2.proven_by, 'render');
  assert.ok(page2.identical);
  assert.ok(verification.pages.filter((p) => p.page_index > 1).every((p) => p.proven_by === 'objects'));
  assert.match(poppler(output, 'tcpdf-corrected.pdf', 0), /Nicloa/);
  assert.is(qpdfCheck(output, 'tcpdf-corrected.pdf').status, 0);
});

test('an encrypted damaged file is saved repaired and still encrypted, with its password', async () => {
  const pdf = damaged(corpusPdf('libreoffice-password.pdf'), { kind: 'no-xref' });
  const input = { ...editInput(pdf, 'nonumy', 'nonmuy'), password: 'openpassword' };
  const proposal = await proposeEdit(input);
  assert.is(proposal.visibility_cost, 'low', proposal.explanation);
  assert.ok((proposal.warnings ?? []).some((w) => w.includes('saved repaired')));
  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.match(Buffer.from(output).toString('latin1'), /\/Encrypt/);
  const path = join(dir, 'encrypted-corrected.pdf');
  writeFileSync(path, output);
  assert.match(pdftotext(path, 0, 'openpassword'), /nonmuy/);
});

test('a wrong /Length in a file whose table is sound: no repair at all (the update keeps every byte)', async () => {
  const pdf = damaged(corpusPdf('libreoffice-writer.pdf'), { kind: 'length', object: 5, by: 40 });
  const { output, verification, proposal } = await applyEdit(editInput(pdf, 'nonumy', 'nonmuy'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.visibility_cost, 'none');
  assert.not.ok((proposal.warnings ?? []).some((w) => w.includes('repaired')));
  assert.is(repairOfVerification(verification), undefined);
  assert.ok(Buffer.from(output.subarray(0, pdf.length)).equals(Buffer.from(pdf)));
});

test('the guard is not weakened: a change the repair did not make is still refused', () => {
  const pdf = fopLike('libreoffice-writer.pdf', 5, 40);
  const repair = repairOf(pdf, '')!;
  assert.equal(
    repair.objects.map((o) => o.num),
    [2, 5],
  );
  const declared = repairDeclarations(repair);
  const inputIndex = new ObjectIndex(pdf, () => null);
  const guard = (bytes: Uint8Array) =>
    objectsUntouched(pdf, bytes, inputIndex, new ObjectIndex(bytes, () => null), declared, {
      encrypted: false,
      repaired: repair.file,
    });
  // The repaired file itself: every change declared.
  const same = guard(repair.file.bytes);
  assert.ok(same.passed, same.detail);
  assert.equal(
    same.rewritten.map((r) => [r.num, r.kind]),
    [
      [2, 'repair'],
      [5, 'repair'],
    ],
  );
  // Each mutation keeps the byte count, so every offset still holds.
  const mutate = (find: string, replace: string) => {
    const text = Buffer.from(repair.file.bytes).toString('latin1');
    const at = text.indexOf(find);
    assert.ok(at > 0, find);
    return new Uint8Array(Buffer.from(text.slice(0, at) + replace + text.slice(at + find.length), 'latin1'));
  };
  // An object the repair did not touch: the page's MediaBox.
  const other = guard(mutate('841.889763779528]', '841.889763779529]'));
  assert.not.ok(other.passed);
  assert.ok(
    other.undeclared.some((u) => u.paths.includes('/MediaBox/3')),
    other.detail,
  );
  // A repaired object changed beyond the repair: its /Length as the repair wrote it is exact.
  const len = repair.objects.find((o) => o.num === 5)!;
  assert.ok(len.changed.includes('/Length'));
  const repairedText = Buffer.from(repair.file.bytes).toString('latin1');
  const lengthToken = /\n5 0 obj\s*<<[^]*?\/Length (\d+)/.exec(repairedText)![1];
  const wrong = String(Number(lengthToken) - 1);
  const beyond = guard(
    mutate(`/Length ${lengthToken}`, `/Length ${wrong}`.padEnd(`/Length ${lengthToken}`.length)),
  );
  assert.not.ok(beyond.passed);
  assert.ok(
    beyond.undeclared.some((u) => u.num === 5),
    beyond.detail,
  );
});

test('a repaired file still refused: the advice names the damage and the repair, not the replacement’s width', () => {
  const advice = structuralAdvice(
    {
      failure_reason:
        'objects_untouched: objects changed where the correction declared nothing: object 7 /MediaBox/3',
      stream_changes: {
        incremental: false,
        repair: { cause: 'its cross-reference table is missing or unreadable' },
      },
    },
    ['objects_untouched'],
  );
  assert.ok(advice);
  assert.match(advice!.what, /damaged \(its cross-reference table is missing or unreadable\)/);
  assert.match(advice!.do.join(' '), /qpdf damaged\.pdf repaired\.pdf/);
  assert.not.match(advice!.do.join(' '), /same width/);
  const inPlace = structuralAdvice(
    { failure_reason: 'objects_untouched: object 7 /MediaBox/3', stream_changes: { incremental: true } },
    ['objects_untouched'],
  );
  assert.match(inPlace!.what, /did not declare/);
  assert.not.match(inPlace!.do.join(' '), /same width/);
  assert.is(structuralAdvice({ failure_reason: null, stream_changes: {} }, []), null);
});

test('a trailer /Size short of its table: mended by an appended section, every byte kept, cost none, proven offline', async () => {
  // poppler's pdfunite writes /Size 50 over objects up to 63: every object stands where the table
  // says, but MuPDF repairs the file to read it and could only save it rewritten (cost low).
  // A comment after the %%EOF, as many files (and the harness's uploads) end.
  const pdf = new Uint8Array(
    Buffer.concat([
      damaged(corpusPdf('standard14-tcpdf.pdf'), { kind: 'short-size', by: 3 }),
      Buffer.from('%written after the end\n'),
    ]),
  );
  assert.match(qpdfCheck(pdf, 'short-size.pdf').warnings, /reported number of objects \(48\)/);
  const input = editInput(pdf, 'Nicola', 'Nicloa');
  input.manifest = { ...input.manifest, original_sha256: createHash('sha256').update(pdf).digest('hex') };
  const proposal = await proposeEdit(input);
  assert.is(proposal.visibility_cost, 'none', proposal.explanation);
  assert.ok(
    (proposal.warnings ?? []).some((w) => /trailer gives \/Size 48 .* objects up to 50/.test(w)),
    JSON.stringify(proposal.warnings),
  );
  assert.not.ok((proposal.warnings ?? []).some((w) => w.includes('saved repaired')));
  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.ok(Buffer.from(pdf).equals(output.subarray(0, pdf.length)), 'every original byte kept, in place');
  // qpdf finds nothing left to warn about; poppler reads the correction.
  const check = qpdfCheck(output, 'short-size-corrected.pdf');
  assert.is(check.status, 0, check.warnings);
  assert.match(poppler(output, 'short-size-corrected.pdf'), /Nicloa/);
  const proof = await rederiveProof(pdf, output);
  assert.ok(proof.passed, proof.failures.join(' | '));
  assert.is(proof.objects.changed_undeclared.length, 0);
});

test.run();
