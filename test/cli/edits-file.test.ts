// The edits file: the parser `docfix fix` uses and the published JSON Schema (docs/edits.schema.json)
// accept and refuse the same documents; the example in docs/edits-file.md is valid.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEditsDocument, parseReplace } from '../../cli/edits-file.ts';
import { ROOT } from './helpers.ts';

const schema = JSON.parse(readFileSync(join(ROOT, 'docs/edits.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);

const parses = (doc: unknown) => {
  try {
    parseEditsDocument(doc);
    return true;
  } catch {
    return false;
  }
};

const CASES: [string, unknown, boolean][] = [
  ['minimal', { edits: [{ find: 'a', replace: 'b' }] }, true],
  ['bare array', [{ find: 'a', replace: '' }], true],
  [
    'full edit',
    { version: 1, edits: [{ find: 'a', replace: 'b', page: 1, match: 0, method: 'ocr', font_attempt: 2 }] },
    true,
  ],
  ['ocr in a language', { edits: [{ find: 'a', replace: 'b', method: 'ocr', page: 0, lang: 'rus' }] }, true],
  ['lang without ocr', { edits: [{ find: 'a', replace: 'b', lang: 'rus' }] }, false],
  ['lang not a name', { edits: [{ find: 'a', replace: 'b', method: 'ocr', page: 0, lang: '../x' }] }, false],
  ['per file', { files: { 'x.pdf': [{ find: 'a', replace: 'b' }] } }, true],
  ['the matching rule', { edits: [{ find: 'a', replace: 'b', ignore_case: true, word: false }] }, true],
  ['ignore_case not a boolean', { edits: [{ find: 'a', replace: 'b', ignore_case: 'yes' }] }, false],
  ['ocr with word', { edits: [{ find: 'a', replace: 'b', method: 'ocr', page: 0, word: true }] }, false],
  ['missing replace', { edits: [{ find: 'a' }] }, false],
  ['empty find', { edits: [{ find: '', replace: 'b' }] }, false],
  ['unknown field', { edits: [{ find: 'a', replace: 'b', pge: 1 }] }, false],
  ['negative page', { edits: [{ find: 'a', replace: 'b', page: -1 }] }, false],
  ['match without page', { edits: [{ find: 'a', replace: 'b', match: 1 }] }, false],
  ['ocr without page', { edits: [{ find: 'a', replace: 'b', method: 'ocr' }] }, false],
  ['bad method', { edits: [{ find: 'a', replace: 'b', method: 'visual' }] }, false],
  ['version 2', { version: 2, edits: [{ find: 'a', replace: 'b' }] }, false],
  ['unknown top field', { edit: [] }, false],
  ['files not arrays', { files: { 'x.pdf': { find: 'a' } } }, false],
];

test('the parser and the schema agree', () => {
  for (const [name, doc, ok] of CASES) {
    assert.is(parses(doc), ok, `parser: ${name}`);
    assert.is(validate(doc), ok, `schema: ${name}`);
  }
});

test('the example of docs/edits-file.md is valid', () => {
  const md = readFileSync(join(ROOT, 'docs/edits-file.md'), 'utf8');
  const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(md)![1]);
  assert.ok(validate(example), JSON.stringify(validate.errors));
  const plan = parseEditsDocument(example);
  assert.is(plan.edits.length, 2);
  assert.is(plan.files['scan-3.pdf'][0].method, 'ocr');
});

test('problems are named, all at once', () => {
  try {
    parseEditsDocument(
      {
        edits: [
          { find: '', replace: 1 },
          { find: 'x', replace: 'y', page: 'one' },
        ],
      },
      'e.json',
    );
    assert.unreachable();
  } catch (error) {
    const message = (error as Error).message;
    assert.match(message, /edits\[0\]\.find/);
    assert.match(message, /edits\[0\]\.replace/);
    assert.match(message, /edits\[1\]\.page/);
  }
});

test('--replace OLD=NEW', () => {
  assert.equal(parseReplace('Jonh=John'), {
    find: 'Jonh',
    replace: 'John',
    method: 'text_layer',
    font_attempt: 0,
  });
  assert.is(parseReplace('a=').replace, '');
  assert.is(parseReplace('x=y=z').replace, 'y=z');
  assert.is(parseReplace('1\\=2=3').find, '1=2');
  assert.throws(() => parseReplace('noequals'));
  assert.throws(() => parseReplace('=x'));
});

test.run();
