// The scan's pixels turned upright (src/corrections/scan/scan-image.ts, findScanImage): a page of
// noise pixels shown as it is, turned a quarter, a half or three quarters by the page's /Rotate, or
// flipped by its drawing matrix, gives the image's own pixels in the order the page shows them —
// computed here from where each pixel lands on the page, not from the engine's orientation map.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findScanImage } from '../../../../src/corrections/scan/scan-image.ts';
import { mupdf, openPdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { seededRandom } from '../../../../fixtures/seeded-random.ts';

const W = 40;
const H = 24;

/** W×H pixels of noise (n channels), row 0 at the top. */
function noise(n: 1 | 3, seed: number): Uint8Array {
  const next = seededRandom(seed);
  return Uint8Array.from({ length: W * H * n }, () => Math.floor(next() * 256));
}

/** A page W×H pt showing the pixels at 72 ppi, turned by `rotate`, mirrored left to right when `mirror`. */
function page(pixels: Uint8Array, n: 1 | 3, rotate: 0 | 90 | 180 | 270, mirror: boolean): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const cs = n === 1 ? mupdf.ColorSpace.DeviceGray : mupdf.ColorSpace.DeviceRGB;
    const pixmap = new mupdf.Pixmap(cs, [0, 0, W, H], false);
    pixmap.getPixels().set(pixels);
    const image = doc.addImage(new mupdf.Image(pixmap));
    pixmap.destroy();
    const res = doc.newDictionary();
    const xo = doc.newDictionary();
    xo.put('Im0', image);
    res.put('XObject', xo);
    const cm = mirror ? `${-W} 0 0 ${H} ${W} 0` : `${W} 0 0 ${H} 0 0`;
    doc.insertPage(-1, doc.addPage([0, 0, W, H], rotate, res, `q ${cm} cm /Im0 Do Q`));
    return takeBytes(doc.saveToBuffer(''));
  } finally {
    doc.destroy();
  }
}

/** Where the page shows pixel (x, y) of the image: its upright position, turned clockwise by `rotate`. */
function shownAt(x: number, y: number, rotate: number, mirror: boolean): [number, number] {
  const mx = mirror ? W - 1 - x : x;
  if (rotate === 90) return [H - 1 - y, mx];
  if (rotate === 180) return [W - 1 - mx, H - 1 - y];
  if (rotate === 270) return [y, W - 1 - mx];
  return [mx, y];
}

for (const n of [1, 3] as const)
  for (const rotate of [0, 90, 180, 270] as const)
    for (const mirror of [false, true])
      test(`${n === 1 ? 'grey' : 'RGB'} scan, /Rotate ${rotate}${mirror ? ', mirrored' : ''}: upright pixels as shown`, () => {
        const pixels = noise(n, 7 + rotate + (mirror ? 1 : 0));
        const { doc } = openPdf(page(pixels, n, rotate, mirror), '');
        try {
          const scan = findScanImage(doc.loadPage(0));
          if ('refused' in scan) throw new Error(scan.refused);
          const turned = rotate === 90 || rotate === 270;
          const r = scan.raster;
          assert.equal([r.width, r.height, r.channels], [turned ? H : W, turned ? W : H, n]);
          let wrong = 0;
          for (let y = 0; y < H; y++)
            for (let x = 0; x < W; x++) {
              const [i, j] = shownAt(x, y, rotate, mirror);
              for (let k = 0; k < n; k++)
                if (r.data[(j * r.width + i) * n + k] !== pixels[(y * W + x) * n + k]) wrong++;
            }
          assert.is(wrong, 0, `${wrong} samples out of place`);
        } finally {
          doc.destroy();
        }
      });

test.run();
