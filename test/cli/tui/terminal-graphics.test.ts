// Drawing crops in a terminal: which kind is chosen, and what each kind writes.
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  blockLines,
  cropBitmap,
  daSaysSixel,
  decodePng,
  detectGraphics,
  encodePng,
  iterm2Image,
  kittyPlaceholderLines,
  kittyTransmit,
  pasteBitmap,
  probeSixel,
  scaleBitmap,
  sixelImage,
  viewAround,
  viewWhole,
  type Bitmap,
} from '../../../cli/tui/review/terminal-graphics.ts';

/** w × h, black where `dark(x, y)`. */
function bitmap(w: number, h: number, dark: (x: number, y: number) => boolean): Bitmap {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const v = dark(x, y) ? 0 : 255;
      data.set([v, v, v, 255], (y * w + x) * 4);
    }
  return { width: w, height: h, data };
}

test('the kind follows the environment; NO_COLOR gives the grey ramp; DOCFIX_GRAPHICS forces one', () => {
  assert.is(detectGraphics({}, true), 'blocks');
  assert.is(detectGraphics({}, false), 'grey');
  assert.is(detectGraphics({ TERM: 'xterm-kitty' }, true), 'kitty');
  assert.is(detectGraphics({ KITTY_WINDOW_ID: '1' }, true), 'kitty');
  assert.is(detectGraphics({ TERM_PROGRAM: 'ghostty' }, true), 'kitty');
  assert.is(detectGraphics({ TERM_PROGRAM: 'iTerm.app' }, true), 'iterm2');
  assert.is(detectGraphics({ TERM_PROGRAM: 'WezTerm' }, true), 'iterm2');
  assert.is(detectGraphics({ TERM_PROGRAM: 'iTerm.app', TMUX: '/tmp/x' }, true), 'blocks');
  assert.is(detectGraphics({ TERM: 'xterm-kitty' }, false), 'grey');
  assert.is(detectGraphics({ DOCFIX_GRAPHICS: 'sixel' }, true), 'sixel');
  assert.is(detectGraphics({ DOCFIX_GRAPHICS: 'blocks' }, false), 'grey');
  assert.is(detectGraphics({ DOCFIX_GRAPHICS: 'nonsense' }, true), 'blocks');
});

test('sixel is read from the device attributes answer', () => {
  assert.is(daSaysSixel('\x1b[?62;4;6;22c'), true);
  assert.is(daSaysSixel('\x1b[?64;1;2;6;9;15;18;21;22c'), false);
  assert.is(daSaysSixel('garbage'), false);
});

test('bitmaps: crop, paste, scale (averaging), PNG round trip', () => {
  const b = bitmap(8, 4, (x) => x < 4);
  const c = cropBitmap(b, 2, 1, 4, 2);
  assert.equal([c.width, c.height], [4, 2]);
  assert.equal([...c.data.subarray(0, 4)], [0, 0, 0, 255]);
  assert.equal([...c.data.subarray(8, 12)], [255, 255, 255, 255]);
  const white = bitmap(4, 4, () => false);
  const pasted = pasteBitmap(
    white,
    bitmap(2, 2, () => true),
    3,
    3,
  );
  assert.equal([...pasted.data.subarray((3 * 4 + 3) * 4, (3 * 4 + 3) * 4 + 3)], [0, 0, 0]);
  assert.equal([...white.data.subarray((3 * 4 + 3) * 4, (3 * 4 + 3) * 4 + 3)], [255, 255, 255], 'a copy');
  const half = scaleBitmap(
    bitmap(4, 2, (x) => x === 0),
    2,
    1,
  );
  assert.equal([...half.data.subarray(0, 3)], [128, 128, 128]);
  const back = decodePng(encodePng(b));
  assert.equal([back.width, back.height, [...back.data]], [8, 4, [...b.data]]);
});

test('half-blocks and the grey ramp; a view centred on the match, or the whole image fitted', () => {
  const b = bitmap(8, 4, (x) => x < 4);
  assert.equal(blockLines(viewWhole(b, 8, 4), false), ['@@@@    ', '@@@@    ']);
  const coloured = blockLines(viewWhole(b, 8, 4), true);
  assert.match(coloured[0], /^\x1b\[38;2;0;0;0m\x1b\[48;2;0;0;0m▀/);
  assert.match(coloured[0], /\x1b\[0m$/);
  // A wide line, the match on the right: the window follows it.
  const line = bitmap(400, 20, (x) => x >= 360 && x < 380);
  const view = viewAround(line, [360, 0, 380, 20], 20, 5, 2);
  assert.equal([view.cols, view.rows], [20, 5]);
  assert.equal([view.bitmap.width, view.bitmap.height], [40, 20]);
  const lines = blockLines(view, false);
  assert.ok(
    lines.every((l) => /@{10}/.test(l)),
    lines.join('\n'),
  );
});

test('kitty: the image is sent in chunks, drawn by placeholders coloured with its id', () => {
  const png = new Uint8Array(5000).fill(7);
  const sent = kittyTransmit(0x0d0f01, png, 30, 4);
  const chunks = sent.split('\x1b\\').filter(Boolean);
  assert.is(chunks.length, Math.ceil(Buffer.from(png).toString('base64').length / 4096));
  assert.match(chunks[0], /^\x1b_Ga=T,f=100,U=1,q=2,i=855809,c=30,r=4,m=1;/);
  assert.match(chunks[chunks.length - 1], /^\x1b_Gm=0;/);
  const lines = kittyPlaceholderLines(0x0d0f01, 3, 2);
  assert.is(lines.length, 2);
  assert.is(lines[0], '\x1b[38;2;13;15;1m\u{10EEEE}\u0305\u0305\u{10EEEE}\u{10EEEE}\x1b[39m');
  assert.is(lines[1], '\x1b[38;2;13;15;1m\u{10EEEE}\u030D\u0305\u{10EEEE}\u{10EEEE}\x1b[39m');
});

test('iTerm2 and sixel', () => {
  const png = new Uint8Array([1, 2, 3]);
  assert.is(
    iterm2Image(png, 10, 2),
    '\x1b]1337;File=inline=1;size=3;width=10;height=2;preserveAspectRatio=1:AQID\x07',
  );
  const six = sixelImage(bitmap(3, 6, (x) => x === 0));
  assert.match(six, /^\x1bPq"1;1;3;6#0;2;0;0;0/);
  assert.match(six, /#0~\?\?\$#15\?~~-\x1b\\$/);
});

test('probeSixel asks for the device attributes and reads the answer (or gives up)', async () => {
  const fake = (answer: string | null) => {
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream & PassThrough;
    Object.assign(stdin, { isTTY: true, isRaw: false, setRawMode: () => stdin });
    const written: string[] = [];
    const stdout = {
      write: (s: string) => {
        written.push(s);
        if (answer !== null) setTimeout(() => stdin.write(answer), 5);
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    return { stdin, stdout, written };
  };
  let t = fake('\x1b[?62;4;22c');
  assert.is(await probeSixel(t.stdin, t.stdout, 500), true);
  assert.equal(t.written, ['\x1b[c']);
  t = fake('\x1b[?62;22c');
  assert.is(await probeSixel(t.stdin, t.stdout, 500), false);
  t = fake(null);
  assert.is(await probeSixel(t.stdin, t.stdout, 50), false);
});

test.run();
