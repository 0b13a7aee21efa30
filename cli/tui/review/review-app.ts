// The running review screen: a small store around the reducer (each dispatch hands new requests to the
// effects layer), the Ink component that feeds it keys and sizes, and `startReview`, which opens the
// alternate screen and gives the terminal back on quit, Ctrl-C or a signal.
import { render, useApp, useInput, useIsScreenReaderEnabled, useWindowSize } from 'ink';
import React, { useEffect, useSyncExternalStore } from 'react';
import { imageCells, takeKittyImages } from './crop-image.ts';
import { ReviewEffects, type ReviewClient } from './review-effects.ts';
import { lookImage, ReviewScreen, screenLayout } from './review-screen.ts';
import {
  currentCrop,
  selectedMatch,
  type Request,
  type ReviewAction,
  type ReviewState,
} from './review-state.ts';
import { review } from './review-workflow.ts';
import { iterm2Image, kittyTransmit, sixelImage } from './terminal-graphics.ts';

const h = React.createElement;

export interface ReviewStore {
  getState(): ReviewState;
  dispatch(action: ReviewAction): void;
  subscribe(listener: () => void): () => void;
}

/** The reducer in a store: every dispatch takes the requests it left and hands them to `run`. */
export function createReviewStore(initial: ReviewState, run: (request: Request) => void): ReviewStore {
  let state = initial;
  const listeners = new Set<() => void>();
  const flush = () => {
    while (state.requests.length > 0) {
      const requests = state.requests;
      state = review(state, { type: 'requests-taken', ids: requests.map((r) => r.id) });
      for (const r of requests) run(r);
    }
  };
  const store: ReviewStore = {
    getState: () => state,
    dispatch(action) {
      state = review(state, action);
      flush();
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  // Requests of the initial state (load, a search given with --find) start once something runs them.
  queueMicrotask(() => store.dispatch({ type: 'requests-taken', ids: [] }));
  return store;
}

export interface ReviewAppProps {
  store: ReviewStore;
  /** Where kitty images are sent (the terminal); absent in tests. */
  graphicsOut?: NodeJS.WritableStream;
}

export function ReviewApp({ store, graphicsOut }: ReviewAppProps) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { exit } = useApp();
  const size = useWindowSize();
  const screenReader = useIsScreenReaderEnabled();
  useInput((input, key) => store.dispatch({ type: 'key', input, key }));
  useEffect(() => {
    if (size.columns && size.rows && (size.columns !== state.columns || size.rows !== state.rows)) {
      store.dispatch({ type: 'resize', columns: size.columns, rows: size.rows });
    }
  }, [size.columns, size.rows]);
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit]);
  useEffect(() => {
    // Kitty images drawn by placeholders in this frame are sent once, outside Ink's layout.
    for (const image of takeKittyImages())
      graphicsOut?.write(kittyTransmit(image.id, image.png, image.cols, image.rows));
  });
  return h(ReviewScreen, { state, textOnly: screenReader });
}

/** iTerm2 and sixel images cannot live in Ink's cells: the Look image is drawn over its blank cells after each frame. */
export function overlayFor(state: ReviewState): string {
  if (state.graphics !== 'iterm2' && state.graphics !== 'sixel') return '';
  const m = selectedMatch(state);
  const crop = currentCrop(state);
  if (state.mode === 'help' || !m || !crop?.png || state.proposals[m.id] || state.applied[m.id]) return '';
  const layout = screenLayout(state.columns, state.rows, state.corrections.length);
  const request = lookImage(state, layout.columns, layout.panelRows);
  if (!request) return '';
  const drawn = imageCells(request);
  const image = drawn.png
    ? iterm2Image(drawn.png, drawn.cols, drawn.rows)
    : drawn.bitmap
      ? sixelImage(drawn.bitmap)
      : '';
  return image ? `\x1b7\x1b[${layout.imageTop + 1};1H${image}\x1b8` : '';
}

export interface StartReviewOptions {
  client: ReviewClient;
  documentId: string;
  initial: ReviewState;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  cwd?: string;
  /** Told each API call the screen makes, in order (DOCFIX_REVIEW_LOG). */
  log?: (line: string) => void;
  /** --verbose: refusals show the engine's advice. */
  verbose?: boolean;
  /** --ignore-case / --word: the rule of the / search. */
  match?: { ignoreCase: boolean; word: boolean };
  /** --lang: the language scanned pages are recognised in. */
  lang?: string;
}

/** Runs the screen until the person quits; answers the last state (for a summary on the way out). */
export async function startReview(o: StartReviewOptions): Promise<ReviewState> {
  const stdout = o.stdout ?? process.stdout;
  const stdin = o.stdin ?? process.stdin;
  const effects = new ReviewEffects({
    client: o.client,
    documentId: o.documentId,
    // Effects answer asynchronously, after the store below exists.
    dispatch: (action) => store.dispatch(action),
    cwd: o.cwd,
    onLog: o.log,
    verbose: o.verbose,
    ...(o.match ? { match: o.match } : {}),
    ...(o.lang ? { lang: o.lang } : {}),
  });
  const store = createReviewStore(o.initial, (request) => void effects.run(request));
  const app = render(h(ReviewApp, { store, graphicsOut: stdout }), {
    stdout,
    stdin,
    alternateScreen: true,
    interactive: true,
    exitOnCtrlC: false,
    patchConsole: true,
    onRender: () => {
      const overlay = overlayFor(store.getState());
      if (overlay) stdout.write(overlay);
    },
  });
  // A signal from outside (kill, terminal closed) still gives the screen back.
  const onSignal = (signal: NodeJS.Signals) => {
    app.unmount();
    process.exitCode = signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 129;
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  try {
    await app.waitUntilExit();
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
  return store.getState();
}
