// The one live line on stderr: a spinner while the CLI waits on the daemon, and an upload's progress
// bar. Only on a terminal and never with --json (configureLiveLine, from context.ts); a pipe or a
// log file gets nothing from here. Whatever is drawn is cleared or ended with a newline, so no
// partial line is left behind for the next message or the shell prompt.
//
// Spinners nest: the client's call wrapper starts one for every request (context.ts) and a command
// may wrap the same wait with a better label; the newest running one is shown, and the line appears
// only once a wait has lasted a second, so quick requests draw nothing.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;

let enabled = false;
let colour = false;
let delayMs = 1000;

/**
 * Whether live output may be drawn (stderr a terminal, no --json), in colour, and how long a wait
 * lasts before its spinner shows (a second; tests shorten it).
 */
export function configureLiveLine(options: { enabled: boolean; colour: boolean; delayMs?: number }): void {
  enabled = options.enabled;
  colour = options.colour;
  delayMs = options.delayMs ?? 1000;
}

export function liveLineEnabled(): boolean {
  return enabled;
}

interface Wait {
  label: string;
  started: number;
}

const waits: Wait[] = [];
let timer: ReturnType<typeof setInterval> | undefined;
let frame = 0;
let drawn = false;
/** A progress bar owns the line while it draws; spinners wait for it. */
let barActive = false;

const paint = (code: number, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);

/** The text cut to the terminal's width, so it never wraps (a wrapped line cannot be cleared). */
function fit(text: string): string {
  const columns = process.stderr.columns || 80;
  const chars = [...text];
  return chars.length < columns ? text : `${chars.slice(0, columns - 2).join('')}…`;
}

function clearLine(): void {
  if (drawn) process.stderr.write('\r\x1b[2K');
  drawn = false;
}

function tick(): void {
  const top = waits.at(-1);
  if (!top || barActive) return;
  const elapsed = Date.now() - Math.min(...waits.map((w) => w.started));
  if (elapsed < delayMs) return;
  const spin = FRAMES[frame++ % FRAMES.length];
  const seconds = `${Math.round(elapsed / 1000)}s`;
  const plain = `${spin} ${top.label} ${seconds}`;
  const text = fit(plain);
  // Colour only an uncut line (a cut one is plain text).
  const shown = text === plain ? `${paint(36, spin)} ${top.label} ${paint(2, seconds)}` : text;
  process.stderr.write(`\r\x1b[2K${shown}`);
  drawn = true;
}

/**
 * Shows a spinner labelled `label` on stderr while `work` runs, once it has run a second (terminal
 * only, never with --json). Answers what `work` answers; the line is cleared when it settles.
 */
export async function withSpinner<T>(label: string, work: Promise<T>): Promise<T> {
  if (!enabled) return work;
  const wait: Wait = { label, started: Date.now() };
  waits.push(wait);
  timer ??= setInterval(tick, TICK_MS);
  // A spinner must never keep the CLI alive by itself.
  timer.unref?.();
  try {
    return await work;
  } finally {
    waits.splice(waits.indexOf(wait), 1);
    if (waits.length === 0) {
      clearInterval(timer);
      timer = undefined;
      if (!barActive) clearLine();
    }
  }
}

export interface ProgressBar {
  update(done: number, total: number): void;
  /** The last state, ended with a newline (the transfer finished). */
  finish(): void;
  /** The line cleared (the transfer stopped short); a no-op after finish. */
  stop(): void;
}

const formatBytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** A progress bar on stderr (terminal only, never with --json; silent elsewhere). */
export function progressBar(label: string): ProgressBar {
  if (!enabled) return { update() {}, finish() {}, stop() {} };
  let last = '';
  let done = 0;
  let total = 0;
  let ended = false;
  const draw = () => {
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const cells = 24;
    const full = Math.round(fraction * cells);
    const text = fit(
      `${label} ${'█'.repeat(full)}${'░'.repeat(cells - full)} ${Math.round(fraction * 100)}% ${formatBytes(done)}`,
    );
    if (text === last) return; // every chunk reports; redraw only what changed
    last = text;
    process.stderr.write(`\r\x1b[2K${text}`);
    drawn = true;
  };
  return {
    update(sent, size) {
      if (ended) return;
      barActive = true;
      done = sent;
      total = size;
      draw();
    },
    finish() {
      if (ended) return;
      ended = true;
      if (barActive) {
        done = total;
        draw();
        process.stderr.write('\n');
        drawn = false;
      }
      barActive = false;
    },
    stop() {
      if (ended) return;
      ended = true;
      barActive = false;
      clearLine();
    },
  };
}
