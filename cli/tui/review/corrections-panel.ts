// The corrections standing on the document, on rows of their own under the matches (full width, so
// they never share a row with the list and show at any terminal width): a heading with how many stand
// and how many were stepped back (r redoes the newest), then the newest ones, oldest first, each with
// its verification (✓ verified with 0 pixels outside, ✗ not).
import { Box, Text } from 'ink';
import React from 'react';
import type { CorrectionOut } from '../../../src/schemas.ts';

const h = React.createElement;

export function correctionLine(k: CorrectionOut): string {
  const mark = k.verified ? '✓' : '✗';
  const outside = k.verified
    ? `verified, ${k.outside_pixels ?? 0} pixels outside`
    : (k.failure_reason ?? 'not verified');
  return `${mark} #${k.seq} page ${k.page_index}: "${k.text_before ?? '?'}" → "${k.text_after ?? ''}" · ${outside}`;
}

/** How many corrections are listed under the heading on a screen of `rows` rows. */
export function correctionRows(rows: number): number {
  return rows >= 34 ? 3 : 1;
}

export interface CorrectionsPanelProps {
  corrections: CorrectionOut[];
  undone: CorrectionOut[];
  stepping: 'undo' | 'redo' | null;
  width: number;
  /** At most this many corrections are listed (the newest). */
  rows: number;
  colour: boolean;
}

/** The heading: how many stand, how many are shown, and undo/redo under way or possible. */
export function correctionsHeading(props: Omit<CorrectionsPanelProps, 'width' | 'colour'>): string {
  const n = props.corrections.length;
  const parts = [`Corrections standing: ${n}`];
  if (n === 0) parts.push('none yet');
  else if (n > props.rows) parts.push(`the latest ${props.rows} shown`);
  if (props.stepping !== null) parts.push(`${props.stepping === 'undo' ? 'undoing' : 'redoing'}…`);
  else if (props.undone.length > 0) parts.push(`${props.undone.length} stepped back (r redoes)`);
  return parts.join(' · ');
}

export function CorrectionsPanel(props: CorrectionsPanelProps) {
  const { corrections } = props;
  const shown = corrections.slice(Math.max(0, corrections.length - props.rows));
  return h(
    Box,
    { flexDirection: 'column', width: props.width, height: 1 + shown.length },
    h(Text, { bold: true, wrap: 'truncate-end' }, correctionsHeading(props)),
    ...shown.map((k) =>
      h(
        Text,
        {
          key: `k${k.seq}`,
          wrap: 'truncate-end',
          ...(props.colour ? { color: k.verified ? 'green' : 'red' } : {}),
        },
        `  ${correctionLine(k)}`,
      ),
    ),
  );
}
