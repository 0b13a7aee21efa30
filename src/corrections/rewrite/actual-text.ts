// Marked content with /ActualText (`/Span <</ActualText (Knuth,)>> BDC … EMC`): the text a reader
// extracts for the glyphs inside, instead of the glyphs' own codes. XeTeX writes it around words
// and Word around ligatures and hyphens. A correction of glyphs inside such a span rewrites its
// ActualText too, or the text layer would still say the old word.
import { encodeString, type ContentOp, type Operand } from '../locate/content-stream.ts';
import type { StreamEdit } from './rewrite.ts';
import type { StreamUnit } from '../locate/text-interpreter.ts';

type StringOperand = Operand & { kind: 'string' };

/** The /ActualText string of the innermost marked-content span open at operator `opIndex`. */
export function actualTextAt(unit: StreamUnit, opIndex: number): StringOperand | null {
  const open: (StringOperand | null)[] = [];
  for (let i = 0; i < opIndex && i < unit.ops.length; i += 1) {
    const op: ContentOp = unit.ops[i];
    if (op.op === 'BMC') open.push(null);
    else if (op.op === 'BDC') {
      const props = op.operands[1];
      const text = props?.kind === 'dict' ? props.entries.ActualText : undefined;
      open.push(text?.kind === 'string' ? text : null);
    } else if (op.op === 'EMC') open.pop();
  }
  for (let i = open.length - 1; i >= 0; i -= 1) if (open[i]) return open[i];
  return null;
}

/** A PDF text string: UTF-16BE after a byte-order mark, else PDFDocEncoding (Latin-1 for text). */
export function decodeTextString(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff)
    return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return Buffer.from(bytes).toString('latin1');
}

function encodeTextString(text: string, utf16: boolean): Uint8Array {
  if (!utf16 && [...text].every((c) => c.charCodeAt(0) < 0x80))
    return Uint8Array.from(Buffer.from(text, 'latin1'));
  const out = [0xfe, 0xff];
  for (let i = 0; i < text.length; i += 1) {
    const u = text.charCodeAt(i);
    out.push(u >> 8, u & 0xff);
  }
  return Uint8Array.from(out);
}

/**
 * The edit that makes an ActualText string (`actualTextAt`) say `replacement` where it said `find`
 * (which it must hold exactly once); null when it does not hold `find` once (the text layer check
 * then decides).
 */
export function actualTextEdit(
  operand: StringOperand,
  find: string,
  replacement: string,
): { edit: StreamEdit; before: string; after: string } | null {
  const before = decodeTextString(operand.bytes);
  const at = before.indexOf(find);
  if (at < 0 || before.indexOf(find, at + 1) >= 0) return null;
  const after = before.slice(0, at) + replacement + before.slice(at + find.length);
  const utf16 = operand.bytes[0] === 0xfe && operand.bytes[1] === 0xff;
  const text = encodeString(encodeTextString(after, utf16), operand.hex || utf16);
  return { edit: { start: operand.start, end: operand.end, text }, before, after };
}
