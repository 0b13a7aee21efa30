// The read cache of light answers: bounded in bytes, least recently used out first, an answer larger
// than a quarter of it never kept, keys apart per tenant, document and revision.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReadCache, readKey } from '../../daemon/read-cache.ts';

test('holds at most its bytes; the least recently used answer goes first', () => {
  const cache = new ReadCache(100);
  cache.set('a', 'A', 20);
  cache.set('b', 'B', 20);
  cache.set('c', 'C', 20);
  assert.is(cache.get('a'), 'A'); // a is now the most recently used
  cache.set('d', 'D', 25);
  cache.set('e', 'E', 25); // 110 bytes asked: b, the least recently used, leaves
  assert.is(cache.get('b'), undefined);
  assert.equal(
    ['a', 'c', 'd', 'e'].map((k) => cache.get(k)),
    ['A', 'C', 'D', 'E'],
  );
  assert.is(cache.heldBytes, 90);
  assert.ok(cache.heldBytes <= cache.maxBytes);
});

test('an answer larger than a quarter of the cache is not kept; a key set again replaces its answer', () => {
  const cache = new ReadCache(100);
  cache.set('big', 'X', 26);
  assert.is(cache.get('big'), undefined);
  assert.is(cache.size, 0);
  cache.set('k', 'one', 10);
  cache.set('k', 'two', 15);
  assert.is(cache.get('k'), 'two');
  assert.is(cache.heldBytes, 15);
  cache.delete('k');
  assert.is(cache.heldBytes, 0);
});

test('keys differ by tenant, document, revision file and question', () => {
  const base = readKey('preview', 'ten_a', 'doc_1', 'f'.repeat(64), { page_index: 0, thumb: false });
  const others = [
    readKey('preview', 'ten_b', 'doc_1', 'f'.repeat(64), { page_index: 0, thumb: false }),
    readKey('preview', 'ten_a', 'doc_2', 'f'.repeat(64), { page_index: 0, thumb: false }),
    readKey('preview', 'ten_a', 'doc_1', 'e'.repeat(64), { page_index: 0, thumb: false }),
    readKey('preview', 'ten_a', 'doc_1', 'f'.repeat(64), { page_index: 1, thumb: false }),
    readKey('crop', 'ten_a', 'doc_1', 'f'.repeat(64), { page_index: 0, thumb: false }),
  ];
  assert.is(new Set([base, ...others]).size, 6);
});

test.run();
