// The long real manual of the bench (issue 35): 833 pages built at bench time from real documents of
// the corpus with qpdf (`qpdf --empty --pages …`), never committed: the 117-page GeoTopo lecture notes
// seven times over, then the 14-page TraceMonkey paper, so the target is the last page. Repeated
// pages share their fonts and resources, as the chapters of one long manual do. Also the one-page
// file made of the target page alone (the same page, extracted by qpdf).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = (name: string) => `${root}fixtures/corpus/pdf/${name}`;
const GENERATED = `${root}fixtures/generated`;

const MANUAL = 'geotopo-linearized-type1c.pdf';
const MANUAL_COPIES = 7;
const TAIL = 'tracemonkey-two-column.pdf';

/** Pages of the long manual: 7 × 117 + 14. */
export const LONG_PAGES = MANUAL_COPIES * 117 + 14;
/** The late page corrected (0-based): the TraceMonkey paper's last page, the file's last. */
export const LONG_TARGET_PAGE = LONG_PAGES - 1;
/** A one-word correction there (corpus manifest: a task of kind `same` on tracemonkey page 13). */
export const LONG_TARGET = { find: 'either', replacement: 'eitehr' };
/** A word of the GeoTopo notes on many pages, for the first search. */
export const LONG_SEARCH = 'Topologie';

function qpdf(args: string[], out: string): string {
  if (existsSync(out)) return out;
  mkdirSync(GENERATED, { recursive: true });
  execFileSync('qpdf', [...args, `${out}.tmp`], { stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(`${out}.tmp`, out);
  return out;
}

/** The 833-page manual (built once into fixtures/generated/, which git ignores). */
export function makeLongRealManual(): string {
  const pages: string[] = [];
  for (let i = 0; i < MANUAL_COPIES; i += 1) pages.push(corpus(MANUAL), '1-z');
  pages.push(corpus(TAIL), '1-z');
  return qpdf(['--empty', '--pages', ...pages, '--'], `${GENERATED}/bench-long-real-${LONG_PAGES}.pdf`);
}

/** The long manual's target page alone. */
export function makeLongTargetPage(): string {
  const long = makeLongRealManual();
  return qpdf(
    ['--empty', '--pages', long, String(LONG_TARGET_PAGE + 1), '--'],
    `${GENERATED}/bench-long-real-page-${LONG_TARGET_PAGE}.pdf`,
  );
}
