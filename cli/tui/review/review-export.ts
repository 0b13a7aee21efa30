// The review's export: the path offered (beside the file reviewed), the export asked for, its
// progress, and where it was written.
import { ask, say, type ReviewAction, type ReviewState } from './review-state.ts';

/** Beside the file reviewed (review FILE.pdf), else the document's name with -fixed, in the cwd. */
export function defaultExportPath(state: Pick<ReviewState, 'exportPath' | 'doc' | 'documentRef'>): string {
  if (state.exportPath) return state.exportPath;
  const name = state.doc?.name || state.documentRef;
  return fixedName(name);
}

/** `memo.pdf` → `memo-fixed.pdf` (characters a file name should not hold become dashes). */
export function fixedName(name: string): string {
  const stem = name.replace(/\.pdf$/i, '').replace(/[^\w.-]+/g, '-') || 'document';
  return `${stem}-fixed.pdf`;
}

/** Enter on the export path: the corrected document written there (the path typed, else the default). */
export function startExport(state: ReviewState): ReviewState {
  const path = state.input.trim() || defaultExportPath(state);
  const next: ReviewState = {
    ...state,
    mode: 'browse',
    input: '',
    exportState: { status: 'working', path, fraction: 0, stage: 'checking the gate' },
  };
  return ask(next, { kind: 'export', path });
}

/** An export's progress, its end (the file written), or its failure. */
export function exportAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'export-progress' | 'exported' | 'export-failed' }>,
): ReviewState {
  switch (action.type) {
    case 'export-progress':
      if (!state.exportState) return state;
      return {
        ...state,
        exportState: { ...state.exportState, stage: action.stage, fraction: action.fraction },
      };
    case 'exported':
      return say(
        {
          ...state,
          exportState: {
            status: 'done',
            path: action.path,
            fraction: 1,
            stage: 'written',
            bytes: action.bytes,
            result: action.result,
          },
        },
        `Exported ${action.path} (${action.bytes} bytes, verification ${action.result.verification_id}).`,
        'ok',
      );
    case 'export-failed':
      return say(
        {
          ...state,
          exportState: state.exportState
            ? { ...state.exportState, status: 'failed', problem: action.problem }
            : null,
        },
        action.problem.message,
        'error',
      );
  }
}
