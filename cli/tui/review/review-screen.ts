// The review screen: a header, the matches beside the corrections standing, a panel that shows the
// selected match (Look), its proposal (Propose) or its verification (Apply), a status line and a help
// line that is always there. It renders the state it is given and nothing else.
import { Box, Text } from 'ink';
import React from 'react';
import { correctionRows, CorrectionsPanel } from './corrections-panel.ts';
import { CropImage, type ImageRequest } from './crop-image.ts';
import { MatchList } from './match-list.ts';
import { ProposalPanel, VerificationPanel } from './proposal-panel.ts';
import {
  currentCrop,
  currentLine,
  currentText,
  DEFAULT_ZOOM,
  RENDER_DPI,
  selectedMatch,
  ZOOMS,
  type ReviewMatch,
  type ReviewState,
} from './review-state.ts';

const h = React.createElement;

/** Where things go on a screen of this size, top to bottom, each on rows of its own. */
export interface ScreenLayout {
  columns: number;
  /** Rows of the match list (without its heading). */
  listRows: number;
  /** Corrections listed under their heading (the newest; 0 when none stand). */
  correctionRows: number;
  /** Rows of the panel under the list. */
  panelRows: number;
  /** Row (0-based) where the Look image starts, for terminals drawing images over the cells. */
  imageTop: number;
}

/**
 * Header 1 row, matches 1 + listRows, corrections 1 + correctionRows, a rule, the panel, the status
 * line and the help line.
 */
export function screenLayout(columns: number, rows: number, corrections = 0): ScreenLayout {
  const cols = Math.max(40, columns);
  const listRows = Math.max(3, Math.min(12, rows - 20));
  const shown = Math.min(corrections, correctionRows(rows));
  const above = 1 + (listRows + 1) + (1 + shown) + 1;
  const panelRows = Math.max(6, rows - above - 2);
  return { columns: cols, listRows, correctionRows: shown, panelRows, imageTop: above + 1 };
}

/** Every key, for `?` (and the README). */
export const KEYS: [string, string][] = [
  ['/', 'search the text layer, and recognise scanned pages'],
  ['j k ↓ ↑', 'move between matches (PgUp/PgDn by five)'],
  ['g', 'go to a page (0 is the first)'],
  ['+ -', 'zoom the magnified crop (1×, 1.5×, 2×, 3×, 4× the 300 dpi render)'],
  ['⏎', 'propose a correction for the match (confirm an uncertain reading first)'],
  ['y', 'apply the proposal (and verify); at a reading question: yes'],
  ['n', 'skip the match; at a reading question: no'],
  ['u r', 'undo the latest correction, redo it'],
  ['e', 'export the corrected file through the gate'],
  ['Esc', 'cancel typing, clear the message'],
  ['?', 'this help (any key closes it)'],
  ['q Ctrl-C', 'quit'],
];

/** The list's columns and glyphs, for `?`. */
export const LEGEND = [
  'Columns: state, page, source (text layer or ocr), confidence, competing readings, line.',
  'State: · open  ? needs confirmation  ✔ confirmed  ✓ corrected  – skipped.  ▸ selected.',
];

/** The help line for the mode (always shown, at the bottom). */
export function helpLine(state: ReviewState): string {
  switch (state.mode) {
    case 'search':
      return '⏎ search · Esc cancel · Ctrl-U clear';
    case 'page':
      return '⏎ go to the page · Esc cancel';
    case 'replace':
      return '⏎ propose · Esc cancel · Ctrl-U clear';
    case 'confirm-reading':
      return 'y the crop reads so · n it does not · Esc cancel';
    case 'export':
      return '⏎ export to this file · Esc cancel · Ctrl-U clear';
    case 'help':
      return 'any key closes the help';
    case 'browse': {
      const long =
        '/ find · j/k move · g page · +/- zoom · ⏎ propose · y apply · n skip · u/r undo/redo · e export · ? keys · q quit';
      return state.columns >= long.length
        ? long
        : '/ find · j/k · g page · +/- zoom · ⏎ propose · y/n · u/r · e export · ? keys · q';
    }
  }
}

function Header(props: { state: ReviewState; width: number }) {
  const { state } = props;
  const doc = state.doc;
  const name = doc
    ? `${doc.name || doc.id.slice(0, 12)} · ${doc.pageCount} page${doc.pageCount === 1 ? '' : 's'}`
    : state.documentRef;
  const page = state.page === null ? 'all pages' : `page ${state.page}`;
  return h(
    Text,
    {
      bold: true,
      wrap: 'truncate-end',
      ...(state.colour ? { backgroundColor: 'blue', color: 'white' } : {}),
    },
    ` docfix review · ${name} · ${page} · zoom ${ZOOMS[state.zoom]}× `.padEnd(props.width),
  );
}

/** The words above the crop: what it shows, as the page now reads (the new word once corrected). */
export function matchAlt(m: ReviewMatch, dpi: number, zoom: number): string {
  const source =
    m.source === 'text_layer' ? 'text layer' : `recognised, confidence ${Math.round(m.confidence)}`;
  const now = currentText(m);
  const word = now === m.text ? `"${m.text}"` : `"${now}" (corrected from "${m.text}")`;
  const lineText = currentLine(m);
  const line = lineText ? `, line "${lineText}"` : '';
  return `Crop of page ${m.page} at ${dpi} dpi (${zoom}×): ${word} at [${m.box.join(', ')}] (${source}${m.competing ? `, ${m.competing} competing` : ''})${line}`;
}

/** The image the Look panel shows for the selected match (null until its crop is there). */
export function lookImage(state: ReviewState, cols: number, panelRows: number): ImageRequest | null {
  const m = selectedMatch(state);
  const crop = currentCrop(state);
  if (!m || crop?.status !== 'shown' || !crop.png) return null;
  const s = crop.dpi / RENDER_DPI;
  const region = crop.region;
  const focus: [number, number, number, number] = [
    (m.box[0] - region[0]) * s,
    (m.box[1] - region[1]) * s,
    (m.box[2] - region[0]) * s,
    (m.box[3] - region[1]) * s,
  ];
  const rows = Math.max(2, panelRows - 2);
  // At the default zoom the line fills the rows; each step of zoom magnifies from there.
  const px = ((region[3] - region[1]) * DEFAULT_ZOOM) / (2 * rows);
  return { png: crop.png, focus, pxPerHalfRow: px, cols, rows, graphics: state.graphics };
}

/** The Look panel: the selected match's line, magnified, under its description. */
function LookPanel(props: {
  state: ReviewState;
  match: ReviewMatch;
  width: number;
  rows: number;
  textOnly: boolean;
}) {
  const { state, match: m } = props;
  const crop = currentCrop(state);
  const dpi = Math.round(RENDER_DPI * ZOOMS[state.zoom]);
  const image = lookImage(state, props.width, props.rows);
  const needs =
    m.source !== 'recognised'
      ? ''
      : m.confirmed
        ? '✔ reading confirmed by you'
        : m.needsConfirmation
          ? `? needs confirmation (confidence ${Math.round(m.confidence)}${m.competing ? `, ${m.competing} competing` : ''}): ⏎ to confirm the reading`
          : `· recognised with confidence ${Math.round(m.confidence)}: ⏎ to confirm the reading`;
  return h(
    Box,
    { flexDirection: 'column', width: props.width, height: props.rows },
    h(CropImage, {
      alt: matchAlt(m, dpi, ZOOMS[state.zoom]),
      image,
      placeholder:
        crop?.status === 'failed'
          ? `✗ The crop could not be fetched: ${crop.error ?? ''}`
          : crop?.status === 'loading'
            ? '… fetching the magnified crop'
            : '',
      textOnly: props.textOnly,
    }),
    needs ? h(Text, { wrap: 'truncate-end', ...(state.colour ? { color: 'yellow' } : {}) }, needs) : null,
  );
}

function HelpPanel(props: { width: number; rows: number }) {
  const lines = [...KEYS.map(([k, what]) => `${k.padEnd(9)} ${what}`), '', ...LEGEND];
  return h(
    Box,
    { flexDirection: 'column', width: props.width, height: props.rows },
    h(Text, { bold: true }, 'Keys'),
    ...lines.slice(0, props.rows - 1).map((l, i) => h(Text, { key: i, wrap: 'truncate-end' }, l)),
  );
}

function progressBar(fraction: number, cells = 20): string {
  const full = Math.round(Math.max(0, Math.min(1, fraction)) * cells);
  return '█'.repeat(full) + '░'.repeat(cells - full);
}

/** The status line: what is being typed or asked, else work under way, else the last message. */
export function statusLine(state: ReviewState): { text: string; color?: string } {
  const cursor = '█';
  const m = selectedMatch(state);
  switch (state.mode) {
    case 'search':
      return { text: `Find: ${state.input}${cursor}` };
    case 'page':
      return { text: `Go to page: ${state.input}${cursor}` };
    case 'replace':
      return { text: `Replace "${m?.text ?? ''}" with: ${state.input}${cursor}` };
    case 'export':
      return { text: `Export to: ${state.input}${cursor}` };
    case 'confirm-reading':
      return { text: `Does the magnified crop read "${m?.text ?? ''}"? y yes · n no`, color: 'yellow' };
    default:
      break;
  }
  const e = state.exportState;
  if (e?.status === 'working')
    return { text: `Exporting ${progressBar(e.fraction)} ${Math.round(e.fraction * 100)}% ${e.stage}` };
  if (state.searching) return { text: `… ${state.searchNote}` };
  if (!state.message) return { text: '' };
  const glyph = { ok: '✓', warn: '!', error: '✗', info: '·' }[state.message.tone];
  const color = { ok: 'green', warn: 'yellow', error: 'red', info: undefined }[state.message.tone];
  return { text: `${glyph} ${state.message.text}`, color };
}

export interface ReviewScreenProps {
  state: ReviewState;
  /** A screen reader is on: images are replaced by their words. */
  textOnly?: boolean;
}

export function ReviewScreen({ state, textOnly = false }: ReviewScreenProps) {
  const layout = screenLayout(state.columns, state.rows, state.corrections.length);
  const m = selectedMatch(state);
  let panel: React.ReactNode;
  if (state.mode === 'help') panel = h(HelpPanel, { width: layout.columns, rows: layout.panelRows });
  else if (!m) {
    panel = h(
      Box,
      { flexDirection: 'column', height: layout.panelRows },
      h(
        Text,
        { dimColor: true },
        state.query ? '' : 'Find text with /, then look at each match closely before correcting it.',
      ),
    );
  } else if (state.applied[m.id] && state.applied[m.id].status !== 'done') {
    panel = h(VerificationPanel, {
      match: m,
      applied: state.applied[m.id],
      width: layout.columns,
      rows: layout.panelRows,
      colour: state.colour,
    });
  } else if (state.proposals[m.id]) {
    panel = h(ProposalPanel, {
      match: m,
      proposal: state.proposals[m.id],
      width: layout.columns,
      rows: layout.panelRows,
      colour: state.colour,
      graphics: state.graphics,
      textOnly,
      verbose: state.verbose,
    });
  } else if (state.applied[m.id]) {
    const verification = h(VerificationPanel, {
      match: m,
      applied: state.applied[m.id],
      width: layout.columns,
      rows: 4,
      colour: state.colour,
    });
    panel = h(
      Box,
      { flexDirection: 'column', height: layout.panelRows },
      verification,
      h(LookPanel, { state, match: m, width: layout.columns, rows: layout.panelRows - 4, textOnly }),
    );
  } else {
    panel = h(LookPanel, { state, match: m, width: layout.columns, rows: layout.panelRows, textOnly });
  }
  const status = statusLine(state);
  return h(
    Box,
    { flexDirection: 'column', width: layout.columns, height: Math.max(state.rows, 12) },
    h(Header, { state, width: layout.columns }),
    h(MatchList, {
      matches: state.matches,
      selected: state.selected,
      width: layout.columns,
      rows: layout.listRows,
      colour: state.colour,
      searching: state.searching,
      note: state.searchNote,
      query: state.query,
    }),
    h(CorrectionsPanel, {
      corrections: state.corrections,
      undone: state.undone,
      stepping: state.stepping,
      width: layout.columns,
      rows: layout.correctionRows,
      colour: state.colour,
    }),
    h(Text, { dimColor: true }, '─'.repeat(layout.columns)),
    h(Box, { flexDirection: 'column', height: layout.panelRows }, panel),
    h(
      Text,
      { wrap: 'truncate-end', ...(state.colour && status.color ? { color: status.color } : {}) },
      status.text || ' ',
    ),
    h(Text, { dimColor: true, wrap: 'truncate-end' }, helpLine(state)),
  );
}
