// The list of matches: page, where it came from (text layer or recognised), confidence, competing
// readings, whether it needs a person's confirmation, and the words of its line around it. The
// selection is marked with a glyph (▸) as well as colour; so is each match's state.
import { Box, Text } from 'ink';
import React from 'react';
import { currentLine, currentText, type ReviewMatch } from './review-state.ts';

const h = React.createElement;

/** The glyph of a match's state: ✓ corrected, – skipped, ✔ reading confirmed, ? needs confirmation, · open. */
export function matchGlyph(m: ReviewMatch): string {
  if (m.status === 'applied') return '✓';
  if (m.status === 'skipped') return '–';
  if (m.confirmed) return '✔';
  if (m.needsConfirmation) return '?';
  return '·';
}

/** `line` cut to `width` around the span at..at+length, the span in [brackets]. */
export function textAround(line: string, at: number, length: number, width: number): string {
  const word = line.slice(at, at + length);
  if (width < length + 4) return `[${word}]`.slice(0, Math.max(1, width));
  const before = line.slice(0, at);
  const after = line.slice(at + length);
  const room = Math.max(0, width - length - 2);
  let left = Math.min(before.length, Math.ceil(room / 2));
  const right = Math.min(after.length, room - left);
  left = Math.min(before.length, room - right);
  const head = left < before.length ? (left > 0 ? `…${before.slice(before.length - left + 1)}` : '') : before;
  const tail = right < after.length ? `${after.slice(0, Math.max(0, right - 1))}…` : after;
  return `${head}[${word}]${tail}`;
}

/** The line's words around the match (as it now reads), the match in [brackets], cut to `width` around it. */
export function lineContext(m: ReviewMatch, width: number): string {
  const text = currentText(m);
  const line = currentLine(m) ?? text;
  const at = line.indexOf(text);
  return at < 0 ? textAround(text, 0, text.length, width) : textAround(line, at, text.length, width);
}

export interface MatchListProps {
  matches: ReviewMatch[];
  selected: number;
  width: number;
  /** Rows for matches (the heading is extra). */
  rows: number;
  colour: boolean;
  searching: boolean;
  note: string;
  query: string;
}

const pad = (s: string, n: number) => (s.length >= n ? s.slice(0, n) : s + ' '.repeat(n - s.length));

export function matchRow(m: ReviewMatch, selected: boolean, width: number): string {
  const conf = m.source === 'text_layer' ? ' 100' : String(Math.round(m.confidence)).padStart(4);
  const head = `${selected ? '▸' : ' '} ${matchGlyph(m)} ${pad(`p${m.page}`, 4)} ${m.source === 'text_layer' ? 'text' : 'ocr '} ${conf} ${String(m.competing).padStart(2)}  `;
  return head + lineContext(m, Math.max(6, width - head.length));
}

export function MatchList(props: MatchListProps) {
  const { matches, selected, rows } = props;
  const count = matches.length;
  const start = Math.max(0, Math.min(selected - Math.floor(rows / 2), count - rows));
  const shown = matches.slice(start, start + rows);
  const range = count > rows ? ` (${start + 1}–${start + shown.length} shown)` : '';
  const title = props.query
    ? `Matches for "${props.query}": ${count}${range}${props.searching ? ` · ${props.note}` : props.note ? ` · ${props.note}` : ''}`
    : 'No search yet: press / to find text';
  const lines = shown.map((m, i) => {
    const isSel = start + i === selected;
    const tone =
      m.status === 'applied' ? 'green' : m.needsConfirmation && !m.confirmed ? 'yellow' : undefined;
    return h(
      Text,
      {
        key: m.id,
        wrap: 'truncate-end',
        inverse: isSel && props.colour,
        bold: isSel,
        ...(props.colour && tone ? { color: tone } : {}),
      },
      matchRow(m, isSel, props.width),
    );
  });
  return h(
    Box,
    { flexDirection: 'column', width: props.width, height: rows + 1 },
    h(Text, { bold: true, wrap: 'truncate-end' }, title),
    ...lines,
  );
}
