// The Ink view of `docfix apply`: the whole frame rendered to a string (no colour), compared as is.
import { renderToString } from 'ink';
import { PassThrough, Writable } from 'node:stream';
import { PNG } from 'pngjs';
import React from 'react';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProposalOut } from '../../src/schemas.ts';
import { ApplyFrame, confirmWithView, pngToLines, type ViewIO } from '../../cli/tui/apply-view.ts';

/** An 8×4 PNG: the left half black when `dark`, else all white. */
function png(dark: boolean): Buffer {
  const p = new PNG({ width: 8, height: 4 });
  for (let i = 0; i < 32; i++) {
    const v = dark && i % 8 < 4 ? 0 : 255;
    p.data.set([v, v, v, 255], i * 4);
  }
  return PNG.sync.write(p);
}

const proposal: ProposalOut = {
  proposal_id: 'p',
  confirm_token: 't',
  document_id: 'd',
  page_index: 0,
  tier: 1,
  tier_name: 'glyph_reuse',
  visibility_cost: 'none',
  explanation: 'Swap two glyphs.',
  warnings: ['kerning kept'],
  preview: {
    box_render: [0, 0, 8, 4],
    render_dpi: 300,
    before_png: png(true).toString('base64'),
    after_png: png(false).toString('base64'),
    complete: true,
  },
};

const strip = (s: string) =>
  s
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');

test('pngToLines: magnifies a small crop; dark pixels become dense characters', () => {
  const lines = pngToLines(png(true), 16, false);
  assert.equal(lines, ['@@@@@@@@        ', '@@@@@@@@        ', '@@@@@@@@        ', '@@@@@@@@        ']);
  const coloured = pngToLines(png(true), 8, true);
  assert.match(coloured[0], /\x1b\[38;2;0;0;0m\x1b\[48;2;0;0;0m▀/);
});

test('the apply frame: proposal, before/after crops, question', () => {
  const frame = renderToString(
    React.createElement(ApplyFrame, {
      proposal,
      edit: { find: 'Jonh', replacement: 'John' },
      columns: 40,
      colour: false,
    }),
    { columns: 60 },
  );
  const expected = [
    'Proposal "Jonh" → "John" on page 0',
    '  tier 1 glyph_reuse · visibility cost none',
    '  Swap two glyphs.',
    '  ! kerning kept',
    '',
    'before              after',
    '@@@@@@@@@',
    '@@@@@@@@@',
    '@@@@@@@@@',
    '@@@@@@@@@',
    '',
    'Apply this correction? [y/N]',
  ].join('\n');
  assert.fixture(strip(frame), expected);
});

test('a refusal shows its headline and what to try; no crop without a preview', () => {
  let frame = renderToString(
    React.createElement(ApplyFrame, {
      proposal: {
        ...proposal,
        refusal: 'The font cannot draw “ü”.',
        advice: {
          code: 'glyph_not_available',
          what: 'no glyph',
          why: 'subset font',
          do: ['pick other letters'],
          worth_reporting: false,
        },
        warnings: [],
        preview: null,
      },
      edit: { find: 'nonumy', replacement: 'nonümy' },
      columns: 80,
      colour: false,
    }),
    { columns: 80 },
  );
  frame = strip(frame);
  // The headline is one line for the terminal to wrap at its width.
  assert.match(
    frame.replace(/\s+/g, ' '),
    /Refused "nonumy" → "nonümy" on page 0: neither the document's font/,
  );
  assert.match(frame.replace(/\s+/g, ' '), /nor a bundled font can draw "ü"/);
  assert.match(frame, /try: a replacement made of characters the document already shows/);
  assert.not.match(frame, /why:|subset font/, "the engine's advice only with --verbose");
  assert.match(frame, /\(no preview crop\)/);
});

/** A fake terminal: stdin that can be typed into, stdout that keeps what was drawn. */
function fakeTerminal(): { io: ViewIO; type: (keys: string) => void; drawn: () => string } {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream & PassThrough;
  Object.assign(stdin, { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stdout, { isTTY: true, columns: 60, rows: 40 });
  return { io: { stdin, stdout }, type: (keys) => stdin.write(keys), drawn: () => strip(out) };
}

for (const [keys, expected] of [
  ['y', true],
  ['n', false],
  ['\r', false],
] as const) {
  test(`confirmWithView: "${JSON.stringify(keys)}" answers ${expected}`, async () => {
    const term = fakeTerminal();
    const answer = confirmWithView(proposal, { find: 'Jonh', replacement: 'John' }, term.io, false);
    await new Promise((r) => setTimeout(r, 100));
    assert.match(term.drawn(), /Apply this correction\? \[y\/N\]/);
    term.type(keys);
    assert.is(await answer, expected);
  });
}

test.run();
