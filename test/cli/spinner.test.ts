// The live line on stderr (cli/spinner.ts): spinners and the upload's progress bar draw only when
// allowed (a terminal, no --json), never leave a partial line behind, and a finished bar ends with a
// newline. stderr is captured in this process; the spinner's delay is shortened, never timed.
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configureOutput } from '../../cli/context.ts';
import { configureLiveLine, liveLineEnabled, progressBar, withSpinner } from '../../cli/spinner.ts';

/** Runs `work` with stderr captured; answers what was written. */
async function captured(work: () => Promise<void> | void): Promise<string> {
  let out = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
  }
  return out;
}

const CLEAR = '\r\x1b[2K';

test.after.each(() => configureLiveLine({ enabled: false, colour: false }));

test('off a terminal, or with --json on one, nothing live is drawn', async () => {
  const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  try {
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    configureOutput({ json: false } as Parameters<typeof configureOutput>[0]);
    assert.not.ok(liveLineEnabled(), 'not a terminal');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    configureOutput({ json: true } as Parameters<typeof configureOutput>[0]);
    assert.not.ok(liveLineEnabled(), '--json on a terminal');
    configureOutput({ json: false } as Parameters<typeof configureOutput>[0]);
    assert.ok(liveLineEnabled(), 'a terminal without --json');
  } finally {
    if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    configureLiveLine({ enabled: false, colour: false });
  }
  const out = await captured(async () => {
    assert.is(
      await withSpinner(
        'Waiting',
        sleep(250).then(() => 7),
      ),
      7,
    );
    const bar = progressBar('Uploading a.pdf');
    bar.update(10, 100);
    bar.finish();
  });
  assert.is(out, '');
});

test('a spinner shows its label while the wait lasts, then clears its line', async () => {
  configureLiveLine({ enabled: true, colour: false, delayMs: 0 });
  const out = await captured(async () => {
    assert.is(
      await withSpinner(
        'Reading the PDF',
        sleep(350).then(() => 'done'),
      ),
      'done',
    );
  });
  assert.match(out, /Reading the PDF \d+s/);
  assert.ok(out.endsWith(CLEAR), `ends cleared: ${JSON.stringify(out.slice(-20))}`);
  assert.not.match(out, /\n/, 'a spinner adds no lines');
});

test('nested spinners share one line: the newest label shows, one clear at the end', async () => {
  configureLiveLine({ enabled: true, colour: false, delayMs: 0 });
  const out = await captured(async () => {
    const request = withSpinner('Waiting for 127.0.0.1', sleep(350));
    await withSpinner('Applying and verifying', request);
  });
  assert.match(out, /Applying and verifying/);
  assert.not.match(out, /Waiting for/);
  assert.ok(out.endsWith(CLEAR));
});

test('a finished progress bar ends at 100% with a newline; stop after it draws nothing', async () => {
  configureLiveLine({ enabled: true, colour: false, delayMs: 0 });
  const out = await captured(() => {
    const bar = progressBar('Uploading a.pdf');
    bar.update(512, 2048);
    bar.update(512, 2048); // an unchanged state is not drawn again
    bar.update(2048, 2048);
    bar.finish();
    bar.stop();
  });
  assert.is(out.split('25%').length - 1, 1, 'one draw per change');
  assert.match(out, /Uploading a\.pdf █+ 100% 2\.0 KiB\n$/);
});

test('a bar cut short is cleared; a spinner waits for the bar, then draws', async () => {
  configureLiveLine({ enabled: true, colour: false, delayMs: 0 });
  const cut = await captured(() => {
    const bar = progressBar('Uploading a.pdf');
    bar.update(10, 100);
    bar.stop();
  });
  assert.ok(cut.endsWith(CLEAR), 'cleared');
  const out = await captured(async () => {
    const bar = progressBar('Uploading b.pdf');
    bar.update(50, 100);
    const wait = withSpinner('Reading the PDF', sleep(350));
    await sleep(150);
    bar.update(100, 100);
    bar.finish();
    await wait;
  });
  const [before, after] = out.split('100% 100 B\n');
  assert.ok(after !== undefined, 'the bar finished with a newline');
  assert.not.match(before, /Reading the PDF/, 'no spinner over the bar');
  assert.match(after, /Reading the PDF/);
  assert.ok(after.endsWith(CLEAR));
});

test('a line never wraps: it is cut to the terminal width', async () => {
  configureLiveLine({ enabled: true, colour: false, delayMs: 0 });
  const columns = Object.getOwnPropertyDescriptor(process.stderr, 'columns');
  Object.defineProperty(process.stderr, 'columns', { value: 30, configurable: true });
  try {
    const out = await captured(() => {
      const bar = progressBar(`Uploading ${'a-very-long-file-name-'.repeat(4)}.pdf`);
      bar.update(1, 2);
      bar.stop();
    });
    const drawn = out.split(CLEAR).filter(Boolean);
    assert.ok(drawn.length > 0);
    for (const line of drawn) assert.ok([...line].length < 30, `${[...line].length}: ${line}`);
  } finally {
    if (columns) Object.defineProperty(process.stderr, 'columns', columns);
    else delete (process.stderr as { columns?: number }).columns;
  }
});

test.run();
