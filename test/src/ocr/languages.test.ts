// The recognition languages the machine has: the bundled packages and tesseract's data installed on
// the machine (DOCFIX_TESSDATA_DIRS, TESSDATA_PREFIX, Debian's tesseract-ocr-* folders), each once
// with where it comes from; the recogniser always reads a local file (never a CDN); advice names
// what really installs a language; the page's language chosen among all of them.
// Needs Debian's tesseract-ocr-rus (/usr/share/tesseract-ocr/*/tessdata/rus.traineddata).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  availableLanguages,
  installAdvice,
  languageData,
  languageFolders,
  otherLanguageData,
} from '../../../src/ocr/languages.ts';
import { documentLanguage, languageOfTag, languageOfText, ocrPage } from '../../../src/ocr/page-ocr.ts';
import { closeRecognisers, recogniseWords, recogniserOptions } from '../../../src/ocr/recognizer.ts';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { russianScan } from '../../../fixtures/scans/make-russian-scan.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-languages-'));

/** Debian's Russian data: the file tesseract-ocr-rus installs, or a clear failure naming the package. */
function debianRussian(): string {
  const root = '/usr/share/tesseract-ocr';
  const versions = existsSync(root) ? readdirSync(root) : [];
  const file = versions.map((v) => join(root, v, 'tessdata', 'rus.traineddata')).find((f) => existsSync(f));
  if (file) return file;
  throw new Error(
    'these tests need the Debian package tesseract-ocr-rus (apt-get install -y tesseract-ocr-rus): no rus.traineddata under /usr/share/tesseract-ocr/*/tessdata',
  );
}

test.after(async () => {
  await closeRecognisers();
  rmSync(work, { recursive: true, force: true });
});

test('the bundled packages and the system folders are listed, each language once with its source', () => {
  const file = debianRussian();
  const all = availableLanguages({});
  const codes = all.map((l) => l.code);
  assert.equal(codes, [...new Set(codes)].sort(), 'each language once, sorted');
  for (const bundled of ['deu', 'eng', 'fra', 'ukr']) {
    const l = all.find((x) => x.code === bundled)!;
    assert.is(l.source, 'bundled', bundled);
    assert.ok(l.file.endsWith(`${bundled}.traineddata.gz`) && l.gzip);
  }
  const rus = all.find((l) => l.code === 'rus')!;
  assert.equal([rus.source, rus.file, rus.gzip], ['system', file, false]);
  // Orientation detection is data, not a language to read words in.
  assert.not.ok(codes.includes('osd'));
});

test('DOCFIX_TESSDATA_DIRS comes first, then the bundled data, then TESSDATA_PREFIX, then the system', () => {
  const configured = join(work, 'configured');
  const prefix = join(work, 'prefix');
  mkdirSync(configured, { recursive: true });
  mkdirSync(join(prefix, 'tessdata'), { recursive: true });
  copyFileSync(debianRussian(), join(configured, 'eng.traineddata'));
  writeFileSync(join(configured, 'eng.traineddata.gz'), 'a second copy, not taken: the plain file is');
  writeFileSync(join(configured, 'empty.traineddata'), '');
  writeFileSync(join(configured, 'notes.txt'), 'not a language');
  copyFileSync(debianRussian(), join(prefix, 'tessdata', 'rus.traineddata'));
  const env = { DOCFIX_TESSDATA_DIRS: `${configured}:${join(work, 'missing')}`, TESSDATA_PREFIX: prefix };
  const folders = languageFolders(env);
  assert.equal(folders[0], { folder: configured, source: 'configured', exists: true });
  assert.equal(folders[1], { folder: join(work, 'missing'), source: 'configured', exists: false });
  const order = folders.map((f) => f.source);
  assert.ok(order.lastIndexOf('bundled') < order.indexOf('tessdata_prefix'));
  assert.ok(order.lastIndexOf('tessdata_prefix') < order.indexOf('system'));
  const eng = languageData('eng', env)!;
  assert.equal([eng.source, eng.folder, eng.gzip], ['configured', configured, false]);
  const rus = languageData('rus', env)!;
  assert.equal([rus.source, rus.folder], ['tessdata_prefix', join(prefix, 'tessdata')]);
  assert.is(languageData('empty', env), null, 'an empty file is no language');
  assert.is(languageData('../eng', env), null, 'a name is never a path');
  assert.is(languageData('xyz', env), null);
});

test('a second model of a language is the next file that is another model, not a copy of the first', () => {
  const first = join(work, 'second-first');
  const copy = join(work, 'second-copy');
  const other = join(work, 'second-other');
  for (const dir of [first, copy, join(other, 'tessdata')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(first, 'qqq.traineddata'), 'a model of ten');
  writeFileSync(join(copy, 'qqq.traineddata'), 'a model of ten');
  writeFileSync(join(other, 'tessdata', 'qqq.traineddata'), 'another model, of another size');
  const env = { DOCFIX_TESSDATA_DIRS: `${first}:${copy}`, TESSDATA_PREFIX: other };
  assert.is(languageData('qqq', env)!.folder, first);
  const second = otherLanguageData('qqq', env)!;
  assert.equal([second.source, second.folder], ['tessdata_prefix', join(other, 'tessdata')]);
  assert.is(
    otherLanguageData('qqq', { DOCFIX_TESSDATA_DIRS: `${first}:${copy}` }),
    null,
    'a copy is no second model',
  );
  assert.is(otherLanguageData('zzz', env), null);
});

test('the recogniser reads a local file and never a URL: langPath is the folder, no cache', () => {
  for (const l of availableLanguages()) {
    const o = recogniserOptions(l);
    assert.ok(typeof o.langPath === 'string' && isAbsolute(o.langPath), `${l.code}: ${o.langPath}`);
    assert.not.match(o.langPath!, /^[a-z]+:/i, 'no URL scheme: tesseract.js fetches only URLs');
    assert.is(o.langPath, l.folder);
    assert.is(o.gzip, l.gzip);
    assert.is(o.cacheMethod, 'none');
  }
});

test('a language from a configured folder is recognised (here Debian’s Russian under another folder)', async () => {
  const folder = join(work, 'own');
  mkdirSync(folder, { recursive: true });
  copyFileSync(debianRussian(), join(folder, 'rus.traineddata'));
  const before = process.env.DOCFIX_TESSDATA_DIRS;
  process.env.DOCFIX_TESSDATA_DIRS = folder;
  try {
    assert.is(languageData('rus')!.source, 'configured');
    const doc = new mupdf.PDFDocument(russianScan());
    let png: Uint8Array;
    try {
      const page = doc.loadPage(0);
      png = page.toPixmap(mupdf.Matrix.scale(300 / 72, 300 / 72), mupdf.ColorSpace.DeviceGray, false).asPNG();
    } finally {
      doc.destroy();
    }
    const words = await recogniseWords(png, 'rus', true, 300);
    const text = words.map((w) => w.text).join(' ');
    assert.match(text, /работе отдела/, text);
  } finally {
    if (before === undefined) delete process.env.DOCFIX_TESSDATA_DIRS;
    else process.env.DOCFIX_TESSDATA_DIRS = before;
  }
});

test('advice names what really installs a language, never an npm package that does not exist', async () => {
  assert.match(installAdvice('rus'), /apt-get install tesseract-ocr-rus/);
  assert.match(installAdvice('chi_sim'), /apt-get install tesseract-ocr-chi-sim/);
  assert.match(installAdvice('rus'), /DOCFIX_TESSDATA_DIRS/);
  const out = await ocrPage({
    pdf: russianScan(),
    password: '',
    page_index: 0,
    find: '',
    box_render: null,
    render_dpi: null,
    lang: 'qaa',
    turn: 0,
  });
  assert.is(out.available, false);
  assert.match(out.message!, /apt-get install tesseract-ocr-qaa/);
  assert.match(out.message!, /rus/, 'the languages there are');
  assert.not.match(out.message!, /@tesseract\.js-data/);
});

test('the page language among every language there is: the catalog /Lang, else the text’s letters', () => {
  debianRussian();
  assert.is(languageOfTag('ru-RU'), 'rus');
  assert.is(languageOfTag('zh-TW'), 'chi_tra');
  assert.is(languageOfTag('rus'), 'rus');
  assert.is(languageOfTag('x'), null);
  const all = new Set(['eng', 'rus', 'ukr', 'jpn', 'chi_sim']);
  assert.is(languageOfText('Отчёт о работе отдела', all), 'rus');
  assert.is(languageOfText('Звіт про роботу відділу за їхній рік', all), 'ukr');
  assert.is(languageOfText('日本語のテキストです', all), 'jpn');
  assert.is(languageOfText('中文文本测试', all), 'chi_sim');
  assert.is(languageOfText('Отчёт о работе', new Set(['eng'])), null, 'only among those there are');
  // A document whose catalog says Russian is read in Russian: Debian's data, not a bundled package.
  const doc = new mupdf.PDFDocument(russianScan());
  try {
    assert.is(documentLanguage(doc), 'eng', 'an image-only page without /Lang: the default');
    doc.getTrailer().get('Root').put('Lang', doc.newString('ru-RU'));
    assert.is(documentLanguage(doc), 'rus');
  } finally {
    doc.destroy();
  }
});

test.run();
