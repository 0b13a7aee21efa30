// What a proposal says — tier, visibility cost, explanation, warnings, or the refusal with its advice —
// and the predicted line before and after, in words and in pixels (the whole line, the change in
// place); then, once applied, the verification in the same place.
import { Box, Text } from 'ink';
import React from 'react';
import type { ProposalOut, VerificationOut } from '../../../src/schemas.ts';
import { refusalText as refusalWords, sentence } from '../../refusal-text.ts';
import { proposalRefusal, verificationLines } from '../../render.ts';
import { CropImage } from './crop-image.ts';
import { textAround } from './match-list.ts';
import type { ApplyState, ProposalState, ReviewMatch } from './review-state.ts';
import type { GraphicsKind } from './terminal-graphics.ts';

const h = React.createElement;

/** A line of the panel; `label` lines wrap with a hanging indent under their text. */
type Line = { text: string; color?: string; bold?: boolean; dim?: boolean; label?: string };

/** The line's words before and as predicted after, each cut to `width` around the change. */
export function lineAfter(
  m: ReviewMatch,
  replacement: string,
  width = 1000,
): { before: string; after: string } {
  const line = m.line?.text ?? m.text;
  let at = line.indexOf(m.text);
  const whole = at >= 0 ? line : m.text;
  if (at < 0) at = 0;
  const changed = whole.slice(0, at) + replacement + whole.slice(at + m.text.length);
  return {
    before: textAround(whole, at, m.text.length, width),
    after: textAround(changed, at, replacement.length, width),
  };
}

/** A refusal in the panel: its headline and try-line; with --verbose the engine's advice under them. */
function refusalText(m: ReviewMatch, p: ProposalState, q: ProposalOut, verbose: boolean): Line[] {
  const context = {
    ...proposalRefusal(q, { find: m.text, replacement: p.replacement }),
    ...(m.source === 'recognised' ? { ocr: true } : {}),
    inReview: true,
  };
  const words = refusalWords(context);
  const lines: Line[] = [
    { label: '  ', text: sentence(words.headline) },
    { label: '  try: ', text: words.tryLine, color: 'cyan' },
  ];
  if (verbose) {
    if (q.advice?.what) lines.push({ label: '  what: ', text: q.advice.what, dim: true });
    if (q.advice?.why) lines.push({ label: '  why:  ', text: q.advice.why, dim: true });
    for (const step of q.advice?.do ?? []) lines.push({ label: '  do:   ', text: step, dim: true });
    if (q.advice?.worth_reporting)
      lines.push({
        text: '  The engine marks this refusal as worth reporting (a gap in docfix).',
        dim: true,
      });
  }
  return lines;
}

export function proposalText(m: ReviewMatch, p: ProposalState, width = 80, verbose = false): Line[] {
  const lines: Line[] = [];
  const what = `"${m.text}" → "${p.replacement}" on page ${m.page}`;
  if (p.status === 'proposing') return [{ text: `… Proposing ${what}`, dim: true }];
  if (p.status === 'failed' || !p.proposal) {
    lines.push({
      text: `✗ Could not propose ${what}: ${p.problem?.message ?? 'unknown error'}`,
      color: 'red',
    });
    for (const a of p.problem?.advice ?? [])
      lines.push({ text: `  ${a}`, ...(a.startsWith('try:') ? { color: 'cyan' } : {}) });
    return lines;
  }
  const q = p.proposal;
  if (q.refusal) {
    lines.push({ text: `✗ Refused ${what}`, color: 'red', bold: true });
    lines.push(...refusalText(m, p, q, verbose));
  } else {
    lines.push({ text: `● Proposal ${what}`, bold: true });
    const costColour =
      q.visibility_cost === 'none' ? 'green' : q.visibility_cost === 'low' ? 'yellow' : 'red';
    lines.push({
      text: `  tier ${q.tier} ${q.tier_name} · visibility cost ${q.visibility_cost}`,
      color: costColour,
    });
    if (q.explanation) lines.push({ text: `  ${q.explanation}` });
  }
  for (const w of q.warnings ?? []) lines.push({ text: `  ! ${w}`, color: 'yellow' });
  for (const d of (q.predicted_diff ?? []).filter((x) => !x.identical)) {
    lines.push({
      text: `  page ${d.page_index}: ${d.changed_pixels} pixels would change, ${d.outside_pixels} outside`,
      dim: true,
    });
  }
  if (!q.refusal) {
    const words = lineAfter(m, p.replacement, width - 10);
    lines.push({ text: `  before: ${words.before}` });
    lines.push({ text: `  after:  ${words.after}`, color: 'green' });
  }
  return lines;
}

export interface ProposalPanelProps {
  match: ReviewMatch;
  proposal: ProposalState;
  width: number;
  rows: number;
  colour: boolean;
  graphics: GraphicsKind;
  textOnly: boolean;
  verbose?: boolean;
}

function lineNodes(lines: Line[], colour: boolean, keyPrefix: string) {
  return lines.map((l, i) => {
    const style = { bold: l.bold, dimColor: l.dim, ...(colour && l.color ? { color: l.color } : {}) };
    if (l.label === undefined)
      return h(Text, { key: `${keyPrefix}${i}`, wrap: 'truncate-end', ...style }, l.text);
    return h(
      Box,
      { key: `${keyPrefix}${i}`, flexDirection: 'row' },
      h(Text, { bold: true }, l.label),
      h(Box, { flexGrow: 1, flexShrink: 1 }, h(Text, { wrap: 'wrap', ...style }, l.text)),
    );
  });
}

export function ProposalPanel(props: ProposalPanelProps) {
  const { match: m, proposal: p } = props;
  const text = proposalText(m, p, props.width, props.verbose);
  const prompt: Line = p.proposal?.refusal
    ? { text: 'n skip · ⏎ another replacement · / search', dim: true }
    : p.status === 'ready'
      ? { text: 'y apply · n skip · ⏎ another replacement', bold: true }
      : { text: '' };
  const children: React.ReactNode[] = lineNodes(text, props.colour, 't');
  const left = props.rows - text.length - 1;
  const box = p.lineMatchBox;
  if (p.lineBefore && p.lineAfter && box && left >= 3 && !p.proposal?.refusal) {
    const graphics = props.graphics === 'kitty' ? 'kitty' : props.colour ? 'blocks' : 'grey';
    // Stacked when there is height for it, else side by side (each half the width, twice the height).
    const stacked = Math.floor((left - 1) / 2) >= 5 || props.width < 60;
    const imageRows = stacked ? Math.min(8, Math.floor((left - 1) / 2)) : Math.min(10, left - 2);
    const cols = stacked ? props.width - 7 : Math.floor((props.width - 2) / 2);
    // The changed glyphs fill the rows.
    const px = (box[3] - box[1]) / (2 * imageRows);
    const images = (
      [
        ['before ', 'before', p.lineBefore],
        ['after  ', 'after (predicted)', p.lineAfter],
      ] as const
    ).map(([label, title, png]) =>
      h(CropImage, {
        key: label,
        alt: stacked ? '' : `${title}:`,
        noAlt: stacked,
        label: stacked ? label : '',
        image: { png, focus: box, pxPerHalfRow: px, cols, rows: imageRows, graphics },
        textOnly: props.textOnly,
      }),
    );
    children.push(
      h(
        Text,
        { key: 'alt', wrap: 'truncate-end' },
        `Line of page ${m.page} before and after (predicted), around "${m.text}" → "${p.replacement}"${stacked ? ':' : ''}`,
      ),
    );
    if (stacked) children.push(...images);
    else children.push(h(Box, { key: 'pair', flexDirection: 'row', gap: 2 }, ...images));
  }
  children.push(...lineNodes([prompt], props.colour, 'p'));
  return h(Box, { flexDirection: 'column', width: props.width, height: props.rows }, ...children);
}

export interface VerificationPanelProps {
  match: ReviewMatch;
  applied: ApplyState;
  width: number;
  rows: number;
  colour: boolean;
}

export function verificationText(m: ReviewMatch, a: ApplyState): Line[] {
  if (a.status === 'applying')
    return [{ text: `… Applying and verifying "${m.text}" on page ${m.page}`, dim: true }];
  if (a.status === 'failed') {
    return [
      { text: `✗ Not applied: ${a.problem?.message ?? 'unknown error'}`, color: 'red' },
      ...(a.problem?.advice ?? []).map((t) => ({ text: `  ${t}` })),
    ];
  }
  const v = a.verification as VerificationOut;
  return verificationLines(v).map((text, i) => ({
    text: text.replace(/\x1b\[[0-9;]*m/g, ''),
    ...(i === 0 ? { color: v.passed ? 'green' : 'red', bold: true } : {}),
  }));
}

export function VerificationPanel(props: VerificationPanelProps) {
  const lines = verificationText(props.match, props.applied).slice(0, props.rows);
  return h(Box, { flexDirection: 'column', width: props.width }, ...lineNodes(lines, props.colour, 'v'));
}
