// An image of a page region inside the review screen, drawn with the terminal's graphics kind, always
// under a line of text that says what it shows (for screen readers, and for anyone). Pure: the cells
// come from the PNG bytes in the state; kitty images are sent to the terminal by the app
// (review-app.ts), which asks `imageCells` for the same ids.
import { Box, Text } from 'ink';
import React from 'react';
import {
  blockLines,
  decodePng,
  encodePng,
  KITTY_MAX_ROWS,
  kittyPlaceholderLines,
  viewAround,
  viewWhole,
  type Bitmap,
  type GraphicsKind,
  type View,
} from './terminal-graphics.ts';

const h = React.createElement;

export interface ImageRequest {
  png: Uint8Array;
  /** Where to centre the view, in the image's pixels; absent: the whole image, fitted. */
  focus?: [number, number, number, number];
  /** Image pixels per half cell when focused (default: the image's height fills the rows). */
  pxPerHalfRow?: number;
  cols: number;
  rows: number;
  graphics: GraphicsKind;
}

export interface ImageCells {
  /** Text lines to draw (placeholders, blocks, or blank cells under an overlay). */
  lines: string[];
  cols: number;
  rows: number;
  /** For kitty: the image to send with this id; for iTerm2 and sixel: the PNG or pixels to draw over the blank cells. */
  id: number;
  png?: Uint8Array;
  bitmap?: Bitmap;
}

const decoded = new WeakMap<Uint8Array, Bitmap>();
const cells = new Map<string, ImageCells>();
const ids = new WeakMap<Uint8Array, number>();
let nextId = 0x0d0f01;
let pendingKitty: { id: number; png: Uint8Array; cols: number; rows: number }[] = [];

/** Kitty images made since the last call: the app sends them to the terminal once. */
export function takeKittyImages(): { id: number; png: Uint8Array; cols: number; rows: number }[] {
  const taken = pendingKitty;
  pendingKitty = [];
  return taken;
}

function bitmapOf(png: Uint8Array): Bitmap {
  let b = decoded.get(png);
  if (!b) {
    b = decodePng(png);
    decoded.set(png, b);
  }
  return b;
}

function idOf(png: Uint8Array): number {
  let id = ids.get(png);
  if (id === undefined) {
    id = nextId++;
    ids.set(png, id);
  }
  return id;
}

/** The cells showing an image (memoised by bytes and size). */
export function imageCells(req: ImageRequest): ImageCells {
  const base = idOf(req.png);
  const key = `${base}|${req.focus?.join(',') ?? '-'}|${req.pxPerHalfRow ?? '-'}|${req.cols}x${req.rows}|${req.graphics}`;
  const hit = cells.get(key);
  if (hit) return hit;
  const bitmap = bitmapOf(req.png);
  const rows = req.graphics === 'kitty' ? Math.min(req.rows, KITTY_MAX_ROWS) : req.rows;
  const view: View = req.focus
    ? viewAround(bitmap, req.focus, req.cols, rows, req.pxPerHalfRow ?? bitmap.height / (2 * rows))
    : viewWhole(bitmap, req.cols, rows);
  // Each distinct view is its own image for the terminal.
  const id = (base * 131 + cells.size + 1) & 0xffffff;
  let out: ImageCells;
  if (req.graphics === 'blocks' || req.graphics === 'grey') {
    out = { lines: blockLines(view, req.graphics === 'blocks'), cols: view.cols, rows: view.rows, id };
  } else if (req.graphics === 'kitty') {
    out = {
      lines: kittyPlaceholderLines(id, view.cols, view.rows),
      cols: view.cols,
      rows: view.rows,
      id,
      png: encodePng(view.bitmap),
    };
    pendingKitty.push({ id, png: out.png!, cols: view.cols, rows: view.rows });
  } else {
    const blank = ' '.repeat(view.cols);
    out = {
      lines: Array.from({ length: view.rows }, () => blank),
      cols: view.cols,
      rows: view.rows,
      id,
      png: req.graphics === 'iterm2' ? encodePng(view.bitmap) : undefined,
      bitmap: req.graphics === 'sixel' ? view.bitmap : undefined,
    };
  }
  if (cells.size > 200) cells.clear();
  cells.set(key, out);
  return out;
}

export interface CropImageProps {
  /** What the image shows, in words (always drawn, above the image). */
  alt: string;
  image: ImageRequest | null;
  /** Shown instead of an image (loading, failed). */
  placeholder?: string;
  /** A screen reader is on: the words only. */
  textOnly?: boolean;
  /** Printed left of the image's first row (the rows under it are indented as much). */
  label?: string;
  /** Leave out the text alternative line (the caller printed one for several images). */
  noAlt?: boolean;
}

/** The text alternative, then the image (or why there is none). */
export function CropImage(props: CropImageProps) {
  const children = props.noAlt ? [] : [h(Text, { key: 'alt', wrap: 'truncate-end' }, props.alt)];
  const label = props.label ?? '';
  const indent = ' '.repeat(label.length);
  if (!props.textOnly) {
    if (props.image) {
      let drawn: ImageCells | null = null;
      try {
        drawn = imageCells(props.image);
      } catch {
        drawn = null;
      }
      if (drawn)
        drawn.lines.forEach((line, i) =>
          children.push(h(Text, { key: `l${i}`, wrap: 'truncate-end' }, (i === 0 ? label : indent) + line)),
        );
      else children.push(h(Text, { key: 'bad', dimColor: true }, '(the image could not be read)'));
    } else if (props.placeholder) {
      children.push(h(Text, { key: 'ph', dimColor: true }, props.placeholder));
    }
  }
  return h(Box, { flexDirection: 'column' }, ...children);
}
