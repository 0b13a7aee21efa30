// The side panel: the corrections standing on the document, oldest first, each with its verification
// (✓ verified with 0 pixels outside, ✗ not), and how many were stepped back (r redoes the newest).
import { Box, Text } from 'ink';
import React from 'react';
import type { CorrectionOut } from '../../../src/schemas.ts';

const h = React.createElement;

export function correctionLine(k: CorrectionOut): string {
  const mark = k.verified ? '✓' : '✗';
  const outside = k.verified ? `${k.outside_pixels ?? 0} out` : (k.failure_reason ?? 'not verified');
  return `${mark} #${k.seq} p${k.page_index} ${k.text_before ?? '?'}→${k.text_after ?? ''} ${outside}`;
}

export interface CorrectionsPanelProps {
  corrections: CorrectionOut[];
  undone: CorrectionOut[];
  stepping: 'undo' | 'redo' | null;
  width: number;
  rows: number;
  colour: boolean;
}

export function CorrectionsPanel(props: CorrectionsPanelProps) {
  const { corrections, rows } = props;
  const footer =
    props.stepping !== null
      ? `${props.stepping === 'undo' ? 'undoing' : 'redoing'}…`
      : props.undone.length > 0
        ? `${props.undone.length} stepped back (r redo)`
        : '';
  const room = Math.max(0, rows - (footer ? 1 : 0));
  const shown = corrections.slice(Math.max(0, corrections.length - room));
  const lines = shown.map((k) =>
    h(
      Text,
      {
        key: `k${k.seq}`,
        wrap: 'truncate-end',
        ...(props.colour ? { color: k.verified ? 'green' : 'red' } : {}),
      },
      correctionLine(k),
    ),
  );
  if (corrections.length === 0) lines.push(h(Text, { key: 'none', dimColor: true }, 'none yet'));
  return h(
    Box,
    { flexDirection: 'column', width: props.width, height: rows + 1, paddingLeft: 1 },
    h(Text, { bold: true, wrap: 'truncate-end' }, `Corrections standing: ${corrections.length}`),
    ...lines,
    footer ? h(Text, { key: 'footer', dimColor: true, wrap: 'truncate-end' }, footer) : null,
  );
}
