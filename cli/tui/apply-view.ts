// The Ink view of `docfix apply` on a terminal: the proposal and its preview crops (before and after,
// drawn with half-block characters), then y/n. Components render the state they are given; the
// command decides what happens with the answer. No JSX: React.createElement.
import { Box, Text, render, useApp, useInput } from 'ink';
import { PNG } from 'pngjs';
import React from 'react';
import type { ProposalOut } from '../../src/schemas.ts';
import { isColor } from '../context.ts';
import { proposalLines } from '../render.ts';

const h = React.createElement;

/**
 * A PNG as terminal lines: each character cell shows two pixel rows (▀ with foreground = upper,
 * background = lower), scaled to `maxCols` columns (magnified up to 4×). Without colour, a grey ramp.
 */
export function pngToLines(png: Buffer, maxCols: number, colour: boolean, maxRows = 24): string[] {
  const img = PNG.sync.read(png);
  // Shrink wide (or tall) crops to fit; magnify small ones (up to 4 times) so a word can be read.
  const scale = Math.max(0.25, img.width / maxCols, img.height / (2 * maxRows));
  const cols = Math.max(1, Math.floor(img.width / scale));
  const rows = Math.max(1, Math.floor(img.height / scale / 2));
  const px = (x: number, y: number): [number, number, number] => {
    const sx = Math.min(img.width - 1, Math.floor(x * scale));
    const sy = Math.min(img.height - 1, Math.floor(y * scale));
    const i = (sy * img.width + sx) * 4;
    const a = img.data[i + 3] / 255;
    const mix = (v: number) => Math.round(v * a + 255 * (1 - a));
    return [mix(img.data[i]), mix(img.data[i + 1]), mix(img.data[i + 2])];
  };
  const ramp = ' .:-=+*#%@';
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = '';
    for (let x = 0; x < cols; x++) {
      const top = px(x, r * 2);
      const bottom = px(x, r * 2 + 1);
      if (colour) {
        line += `\x1b[38;2;${top.join(';')}m\x1b[48;2;${bottom.join(';')}m▀`;
      } else {
        const lum = (top[0] + top[1] + top[2] + bottom[0] + bottom[1] + bottom[2]) / 6;
        line += ramp[Math.min(ramp.length - 1, Math.floor(((255 - lum) / 256) * ramp.length))];
      }
    }
    lines.push(colour ? `${line}\x1b[0m` : line);
  }
  return lines;
}

export interface ApplyViewProps {
  proposal: ProposalOut;
  edit: { find: string; replacement: string };
  columns: number;
  colour: boolean;
  onAnswer?: (yes: boolean) => void;
}

function Crop(props: { title: string; png: string; columns: number; colour: boolean }) {
  let lines: string[];
  try {
    lines = pngToLines(Buffer.from(props.png, 'base64'), props.columns, props.colour);
  } catch {
    lines = ['(preview unavailable)'];
  }
  return h(
    Box,
    { flexDirection: 'column', marginRight: 2 },
    h(Text, { bold: true }, props.title),
    ...lines.map((line, i) => h(Text, { key: i }, line)),
  );
}

/** The proposal, the before/after crops, and the question. */
export function ApplyView(props: ApplyViewProps) {
  const { exit } = useApp();
  useInput((input, key) => {
    if (input === 'y' || input === 'Y') {
      props.onAnswer?.(true);
      exit();
    } else if (input === 'n' || input === 'N' || key.escape || (key.ctrl && input === 'c') || key.return) {
      props.onAnswer?.(false);
      exit();
    }
  });
  return h(ApplyFrame, props);
}

/** The frame without input handling (rendered in tests with renderToString). */
export function ApplyFrame(props: ApplyViewProps) {
  const preview = props.proposal.preview;
  const half = Math.max(10, Math.floor((props.columns - 4) / 2));
  return h(
    Box,
    { flexDirection: 'column' },
    ...proposalLines(props.proposal, props.edit).map((line, i) => h(Text, { key: `p${i}` }, line)),
    preview
      ? h(
          Box,
          { flexDirection: 'row', marginTop: 1 },
          h(Crop, { title: 'before', png: preview.before_png, columns: half, colour: props.colour }),
          h(Crop, { title: 'after', png: preview.after_png, columns: half, colour: props.colour }),
        )
      : h(Text, { dimColor: true }, '(no preview crop)'),
    h(Box, { marginTop: 1 }, h(Text, { bold: true }, 'Apply this correction? [y/N] ')),
  );
}

export interface ViewIO {
  stdin: NodeJS.ReadStream;
  /** Where the view is drawn (stderr: stdout stays for data). */
  stdout: NodeJS.WriteStream;
}

/** Shows the view on the terminal (stderr) and answers whether the person said yes. */
export async function confirmWithView(
  proposal: ProposalOut,
  edit: { find: string; replacement: string },
  io: ViewIO = { stdin: process.stdin, stdout: process.stderr as NodeJS.WriteStream },
  colour = isColor(),
): Promise<boolean> {
  let answer = false;
  const columns = Math.min(io.stdout.columns || 80, 120);
  const app = render(
    h(ApplyView, {
      proposal,
      edit,
      columns,
      colour,
      onAnswer: (yes: boolean) => {
        answer = yes;
      },
    }),
    // The view is shown only when a person is at a terminal, so it is interactive even where a CI
    // variable is set (Ink would otherwise draw only the last frame).
    { stdout: io.stdout, stdin: io.stdin, exitOnCtrlC: false, patchConsole: false, interactive: true },
  );
  await app.waitUntilExit();
  return answer;
}
