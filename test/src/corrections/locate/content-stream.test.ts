// The tokenizer keeps byte offsets: every operator's slice re-reads to the same operator, splicing
// nothing gives back the same bytes, and strings survive encode → parse.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  encodeString,
  formatNumber,
  parseContent,
  spliceBytes,
  type Operand,
} from '../../../../src/corrections/locate/content-stream.ts';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

const SAMPLE = [
  '% a comment\n',
  'q 1 0 0 1 72 700 cm\n',
  'BT /F1 12 Tf 0 -14.5 Td (Hello \\(nested (parens)\\) \\101\\n) Tj\n',
  '[(A) -250.5 <4142 43> 3 (B)] TJ\n',
  '10 12 (quote) " (tick) \'\n',
  'ET /P << /MCID 3 /Alt (x) >> BDC EMC\n',
  'BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xffEI x\n EI\n',
  'true false null /N#20ame .5 -.25 +3 4. gs Q',
].join('');

test('operators, operands and offsets', () => {
  const b = bytes(SAMPLE);
  const { ops, trailing } = parseContent(b);
  assert.equal(trailing, []);
  assert.equal(
    ops.map((o) => o.op),
    ['q', 'cm', 'BT', 'Tf', 'Td', 'Tj', 'TJ', '"', "'", 'ET', 'BDC', 'EMC', 'BI', 'gs', 'Q'],
  );
  const tj = ops[5].operands[0] as Operand & { kind: 'string' };
  assert.is(Buffer.from(tj.bytes).toString('latin1'), 'Hello (nested (parens)) A\n');
  const arr = ops[6].operands[0] as Operand & { kind: 'array' };
  assert.equal(
    arr.items.map((i) => i.kind),
    ['string', 'number', 'string', 'number', 'string'],
  );
  assert.is((arr.items[1] as { value: number }).value, -250.5);
  assert.equal([...(arr.items[2] as { bytes: Uint8Array }).bytes], [0x41, 0x42, 0x43]);
  const gs = ops[13].operands;
  assert.equal(
    gs.map((o) => ('value' in o ? o.value : o.kind)),
    [true, false, 'null', 'N ame', 0.5, -0.25, 3, 4],
  );
  // Every operator's own bytes re-read to the same operator; operand offsets point at their text.
  for (const op of ops) {
    const again = parseContent(b.subarray(op.start, op.end)).ops;
    assert.is(again.length, 1, `slice of ${op.op}`);
    assert.is(again[0].op, op.op);
  }
  const td = ops[4].operands;
  assert.is(Buffer.from(b.subarray(td[1].start, td[1].end)).toString('latin1'), '-14.5');
});

test('splicing nothing keeps every byte; a splice changes only its range', () => {
  const b = bytes(SAMPLE);
  assert.equal(Buffer.compare(Buffer.from(spliceBytes(b, [])), Buffer.from(b)), 0);
  const { ops } = parseContent(b);
  const tj = ops[5].operands[0];
  const out = spliceBytes(b, [{ start: tj.start, end: tj.end, text: '(Bye)' }]);
  const text = Buffer.from(out).toString('latin1');
  assert.ok(text.startsWith(SAMPLE.slice(0, tj.start)));
  assert.ok(text.endsWith(SAMPLE.slice(tj.end)));
  assert.is(parseContent(out).ops.length, ops.length);
});

test('strings survive encode → parse, literal and hex', () => {
  const all = new Uint8Array(256).map((_, i) => i);
  for (const hex of [false, true]) {
    const token = encodeString(all, hex);
    const { ops } = parseContent(bytes(`${token} Tj`));
    const s = ops[0].operands[0] as Operand & { kind: 'string' };
    assert.equal([...s.bytes], [...all]);
    assert.is(s.hex, hex);
  }
});

test('numbers are written without exponents or trailing zeros', () => {
  assert.is(formatNumber(250), '250');
  assert.is(formatNumber(-0.00001), '0');
  assert.is(formatNumber(333.33333), '333.3333');
  assert.is(formatNumber(1e-7), '0');
  assert.is(formatNumber(-12.5), '-12.5');
});

test.run();
