// Drawing page crops in a terminal, with the best it supports: kitty graphics (Unicode placeholders,
// ordinary text cells that live inside Ink's layout), iTerm2 inline images, sixel, otherwise coloured
// half-blocks (▀: foreground the upper pixel, background the lower) and, with NO_COLOR, a grey ramp.
// Pure functions from pixels to strings; which one is used is decided once, at start.
import { PNG } from 'pngjs';

export type GraphicsKind = 'kitty' | 'iterm2' | 'sixel' | 'blocks' | 'grey';
export const GRAPHICS_KINDS: GraphicsKind[] = ['kitty', 'iterm2', 'sixel', 'blocks', 'grey'];

/** RGBA pixels, row after row. */
export interface Bitmap {
  width: number;
  height: number;
  data: Uint8Array;
}

export function decodePng(bytes: Uint8Array): Bitmap {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
}

export function encodePng(b: Bitmap): Buffer {
  const png = new PNG({ width: b.width, height: b.height });
  png.data = Buffer.from(b.data);
  return PNG.sync.write(png);
}

export function blankBitmap(width: number, height: number): Bitmap {
  return { width, height, data: new Uint8Array(width * height * 4).fill(255) };
}

/** The part of `b` inside x, y, w, h (clamped to it). */
export function cropBitmap(b: Bitmap, x: number, y: number, w: number, h: number): Bitmap {
  const x0 = Math.max(0, Math.min(b.width, Math.round(x)));
  const y0 = Math.max(0, Math.min(b.height, Math.round(y)));
  const x1 = Math.max(x0, Math.min(b.width, Math.round(x + w)));
  const y1 = Math.max(y0, Math.min(b.height, Math.round(y + h)));
  const out = { width: x1 - x0, height: y1 - y0, data: new Uint8Array((x1 - x0) * (y1 - y0) * 4) };
  for (let row = 0; row < out.height; row++) {
    const from = ((y0 + row) * b.width + x0) * 4;
    out.data.set(b.data.subarray(from, from + out.width * 4), row * out.width * 4);
  }
  return out;
}

/** `b` resized to w × h, each output pixel the average of the source pixels it covers (over white). */
export function scaleBitmap(b: Bitmap, w: number, h: number): Bitmap {
  const out = { width: w, height: h, data: new Uint8Array(w * h * 4) };
  const sx = b.width / w;
  const sy = b.height / h;
  for (let y = 0; y < h; y++) {
    const ya = Math.floor(y * sy);
    const yb = Math.max(ya + 1, Math.min(b.height, Math.floor((y + 1) * sy)));
    for (let x = 0; x < w; x++) {
      const xa = Math.floor(x * sx);
      const xb = Math.max(xa + 1, Math.min(b.width, Math.floor((x + 1) * sx)));
      let r = 0;
      let g = 0;
      let bl = 0;
      let n = 0;
      for (let yy = ya; yy < yb; yy++) {
        for (let xx = xa; xx < xb; xx++) {
          const i = (yy * b.width + xx) * 4;
          const a = b.data[i + 3] / 255;
          r += b.data[i] * a + 255 * (1 - a);
          g += b.data[i + 1] * a + 255 * (1 - a);
          bl += b.data[i + 2] * a + 255 * (1 - a);
          n++;
        }
      }
      const o = (y * w + x) * 4;
      out.data[o] = Math.round(r / n);
      out.data[o + 1] = Math.round(g / n);
      out.data[o + 2] = Math.round(bl / n);
      out.data[o + 3] = 255;
    }
  }
  return out;
}

/** `src` drawn over a copy of `dst` at x, y (clipped). */
export function pasteBitmap(dst: Bitmap, src: Bitmap, x: number, y: number): Bitmap {
  const out = { ...dst, data: new Uint8Array(dst.data) };
  for (let row = 0; row < src.height; row++) {
    const ty = y + row;
    if (ty < 0 || ty >= dst.height) continue;
    for (let col = 0; col < src.width; col++) {
      const tx = x + col;
      if (tx < 0 || tx >= dst.width) continue;
      const s = (row * src.width + col) * 4;
      out.data.set(src.data.subarray(s, s + 4), (ty * dst.width + tx) * 4);
    }
  }
  return out;
}

/** A view of an image: the window shown and its size in terminal cells. */
export interface View {
  bitmap: Bitmap;
  cols: number;
  rows: number;
}

/**
 * The window of `b` around `focus` (image pixels x0, y0, x1, y1) shown in at most cols × rows cells,
 * at `pxPerHalfRow` image pixels per half cell (a cell is one pixel wide and two tall in block mode).
 */
export function viewAround(
  b: Bitmap,
  focus: [number, number, number, number],
  cols: number,
  rows: number,
  pxPerHalfRow: number,
): View {
  const s = Math.max(0.25, pxPerHalfRow);
  const w = Math.min(b.width, Math.round(cols * s));
  const h = Math.min(b.height, Math.round(rows * 2 * s));
  const cx = (focus[0] + focus[2]) / 2;
  const cy = (focus[1] + focus[3]) / 2;
  const x = Math.max(0, Math.min(b.width - w, Math.round(cx - w / 2)));
  const y = Math.max(0, Math.min(b.height - h, Math.round(cy - h / 2)));
  const window = cropBitmap(b, x, y, w, h);
  const outCols = Math.max(1, Math.min(cols, Math.round(w / s)));
  const outRows = Math.max(1, Math.min(rows, Math.round(h / s / 2)));
  return { bitmap: window, cols: outCols, rows: outRows };
}

/** Shrinks (or magnifies up to 4×) `b` to fit cols × rows cells, keeping its proportions. */
export function viewWhole(b: Bitmap, cols: number, rows: number): View {
  const s = Math.max(0.25, b.width / cols, b.height / (2 * rows));
  return {
    bitmap: b,
    cols: Math.max(1, Math.min(cols, Math.round(b.width / s))),
    rows: Math.max(1, Math.min(rows, Math.round(b.height / s / 2))),
  };
}

const RAMP = ' .:-=+*#%@';

/** A view as half-block lines (colour) or a grey ramp (no colour). */
export function blockLines(view: View, colour: boolean): string[] {
  const px = scaleBitmap(view.bitmap, view.cols, view.rows * 2);
  const at = (x: number, y: number) => {
    const i = (y * px.width + x) * 4;
    return [px.data[i], px.data[i + 1], px.data[i + 2]];
  };
  const lines: string[] = [];
  for (let r = 0; r < view.rows; r++) {
    let line = '';
    for (let x = 0; x < view.cols; x++) {
      const top = at(x, r * 2);
      const bottom = at(x, r * 2 + 1);
      if (colour) {
        line += `\x1b[38;2;${top.join(';')}m\x1b[48;2;${bottom.join(';')}m▀`;
      } else {
        const lum = (top[0] + top[1] + top[2] + bottom[0] + bottom[1] + bottom[2]) / 6;
        line += RAMP[Math.min(RAMP.length - 1, Math.floor(((255 - lum) / 256) * RAMP.length))];
      }
    }
    lines.push(colour ? `${line}\x1b[0m` : line);
  }
  return lines;
}

// ───────────────────────────── kitty ─────────────────────────────

/** Row and column numbers of kitty's Unicode placeholders (rowcolumn-diacritics.txt, first entries). */
const KITTY_DIACRITICS = [
  0x0305, 0x030d, 0x030e, 0x0310, 0x0312, 0x033d, 0x033e, 0x033f, 0x0346, 0x034a, 0x034b, 0x034c, 0x0350,
  0x0351, 0x0352, 0x0357, 0x035b, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369, 0x036a, 0x036b,
  0x036c, 0x036d, 0x036e, 0x036f,
];
export const KITTY_MAX_ROWS = KITTY_DIACRITICS.length;
const PLACEHOLDER = String.fromCodePoint(0x10eeee);

/**
 * The escape sequence that sends a PNG to a kitty-protocol terminal as image `id` and creates a virtual
 * placement of cols × rows cells for Unicode placeholders (quiet: the terminal answers nothing).
 */
export function kittyTransmit(id: number, png: Uint8Array, cols: number, rows: number): string {
  const data = Buffer.from(png).toString('base64');
  const chunks: string[] = [];
  for (let i = 0; i < data.length; i += 4096) chunks.push(data.slice(i, i + 4096));
  if (chunks.length === 0) chunks.push('');
  return chunks
    .map((chunk, i) => {
      const more = i < chunks.length - 1 ? 1 : 0;
      const head = i === 0 ? `a=T,f=100,U=1,q=2,i=${id},c=${cols},r=${rows},m=${more}` : `m=${more}`;
      return `\x1b_G${head};${chunk}\x1b\\`;
    })
    .join('');
}

/** Deletes image `id` (and its placements) from a kitty-protocol terminal. */
export function kittyDelete(id: number): string {
  return `\x1b_Ga=d,d=I,i=${id},q=2\x1b\\`;
}

/**
 * The text cells that show image `id`: each row a run of U+10EEEE, the first carrying the row and
 * column numbers as combining marks (the rest follow on), in a foreground colour that is the image id.
 */
export function kittyPlaceholderLines(id: number, cols: number, rows: number): string[] {
  const colour = `\x1b[38;2;${(id >> 16) & 255};${(id >> 8) & 255};${id & 255}m`;
  const lines: string[] = [];
  for (let r = 0; r < Math.min(rows, KITTY_MAX_ROWS); r++) {
    const first =
      PLACEHOLDER + String.fromCodePoint(KITTY_DIACRITICS[r]) + String.fromCodePoint(KITTY_DIACRITICS[0]);
    lines.push(`${colour}${first}${PLACEHOLDER.repeat(Math.max(0, cols - 1))}\x1b[39m`);
  }
  return lines;
}

// ───────────────────────────── iTerm2 and sixel ─────────────────────────────

/** An iTerm2 inline image of cols × rows cells (drawn at the cursor). */
export function iterm2Image(png: Uint8Array, cols: number, rows: number): string {
  const data = Buffer.from(png).toString('base64');
  return `\x1b]1337;File=inline=1;size=${png.byteLength};width=${cols};height=${rows};preserveAspectRatio=1:${data}\x07`;
}

/** A sixel image of a bitmap in 16 greys (page crops are text on paper). */
export function sixelImage(b: Bitmap): string {
  const levels = 16;
  const index = new Uint8Array(b.width * b.height);
  for (let i = 0; i < index.length; i++) {
    const a = b.data[i * 4 + 3] / 255;
    const lum = (b.data[i * 4] + b.data[i * 4 + 1] + b.data[i * 4 + 2]) / 3;
    const v = lum * a + 255 * (1 - a);
    index[i] = Math.min(levels - 1, Math.floor((v / 256) * levels));
  }
  let out = `\x1bPq"1;1;${b.width};${b.height}`;
  for (let l = 0; l < levels; l++) {
    const pct = Math.round((l / (levels - 1)) * 100);
    out += `#${l};2;${pct};${pct};${pct}`;
  }
  for (let band = 0; band < b.height; band += 6) {
    const used = new Set<number>();
    for (let y = band; y < Math.min(b.height, band + 6); y++)
      for (let x = 0; x < b.width; x++) used.add(index[y * b.width + x]);
    const parts: string[] = [];
    for (const l of used) {
      let line = `#${l}`;
      let last = '';
      let run = 0;
      const flush = () => {
        if (run === 0) return;
        line += run > 3 ? `!${run}${last}` : last.repeat(run);
      };
      for (let x = 0; x < b.width; x++) {
        let bits = 0;
        for (let k = 0; k < 6; k++) {
          const y = band + k;
          if (y < b.height && index[y * b.width + x] === l) bits |= 1 << k;
        }
        const ch = String.fromCharCode(63 + bits);
        if (ch === last) run++;
        else {
          flush();
          last = ch;
          run = 1;
        }
      }
      flush();
      parts.push(line);
    }
    out += `${parts.join('$')}-`;
  }
  return `${out}\x1b\\`;
}

// ───────────────────────────── detection ─────────────────────────────

/**
 * What the terminal can show, from the environment: DOCFIX_GRAPHICS forces a kind; NO_COLOR gives the
 * grey ramp; kitty, Ghostty → kitty; iTerm2, WezTerm → iTerm2 images; inside tmux or screen, blocks
 * (images would need passthrough). Sixel needs asking the terminal (probeSixel).
 */
export function detectGraphics(env: NodeJS.ProcessEnv, colour: boolean): GraphicsKind {
  const forced = env.DOCFIX_GRAPHICS as GraphicsKind | undefined;
  if (forced && GRAPHICS_KINDS.includes(forced)) return !colour && forced === 'blocks' ? 'grey' : forced;
  if (!colour) return 'grey';
  if (env.TMUX || env.STY || (env.TERM ?? '').startsWith('screen') || (env.TERM ?? '').startsWith('tmux'))
    return 'blocks';
  if (
    env.KITTY_WINDOW_ID ||
    env.TERM === 'xterm-kitty' ||
    env.TERM === 'xterm-ghostty' ||
    env.TERM_PROGRAM === 'ghostty'
  )
    return 'kitty';
  if (env.TERM_PROGRAM === 'iTerm.app' || env.TERM_PROGRAM === 'WezTerm' || env.LC_TERMINAL === 'iTerm2')
    return 'iterm2';
  return 'blocks';
}

/** Whether a device-attributes answer (ESC [ ? 62 ; 4 ; ... c) lists sixel graphics (4). */
export function daSaysSixel(answer: string): boolean {
  const m = /\x1b\[\?([\d;]*)c/.exec(answer);
  return Boolean(m && m[1].split(';').includes('4'));
}

/** Asks the terminal for its device attributes and answers whether it draws sixel (within `ms`). */
export function probeSixel(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream, ms = 200): Promise<boolean> {
  return new Promise((resolve) => {
    if (!stdin.isTTY || !stdin.setRawMode) return resolve(false);
    let answer = '';
    const wasRaw = stdin.isRaw;
    const done = (result: boolean) => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (/\x1b\[\?[\d;]*c/.test(answer)) done(daSaysSixel(answer));
    };
    const timer = setTimeout(() => done(false), ms);
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
    stdout.write('\x1b[c');
  });
}
