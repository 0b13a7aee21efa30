// Engine tasks of the corrections area: propose and apply (apply verifies the bytes it saved).
// Inputs and outputs are plain data so they cross the worker-thread boundary (src/engine-tasks.ts).
//
// The task boundary decides whose fault a failure is. A refusal or a documented DocfixError passes
// through. Anything else (an exception, or the engine's own `edit_failed`) is examined against the
// file (damage.ts): a damaged document is a normal answer — a refusal `damaged_document` inside the
// proposal, `edit_refused` with the same advice at apply. A file with no damage found means the fault
// is the service's: the original exception is rethrown with its stack, which the engine slot logs,
// and the client gets a generic `edit_failed` (daemon/routes/corrections.ts), never the raw text.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DocfixError } from '../errors.ts';
import { damageAdvice, findDamage } from './damage.ts';
import { applyEdit, proposeEdit, type EditTaskInput, type EngineProposal } from './engine.ts';

export type { EditTaskInput, EngineProposal, EngineVerification } from './engine.ts';

/** A failure that is not an answer: a plain exception, or the engine's catch-all edit_failed. */
function isUnexpected(error: unknown): boolean {
  return !(error instanceof DocfixError) || error.code === 'edit_failed' || error.code === 'internal_error';
}

/** The error to rethrow for a service fault: the root exception, whose stack the slot logs. */
function serviceFault(error: unknown): Error {
  const root = error instanceof DocfixError && error.cause !== undefined ? error.cause : error;
  if (root instanceof Error && !(root instanceof DocfixError)) return root;
  const message = root instanceof Error ? root.message : String(root);
  return new Error(`correction task failed on an undamaged file: ${message}`, { cause: root });
}

function damagedProposal(input: EditTaskInput, advice: ReturnType<typeof damageAdvice>): EngineProposal {
  const pageIndex = input.request.page_index ?? 0;
  return {
    page_index: pageIndex,
    tier: -1,
    tier_name: 'none',
    visibility_cost: 'refused',
    explanation: `${advice.what} ${advice.why}`,
    warnings: [],
    refusal: advice.what,
    advice,
    rejected: [],
    predicted_diff: [],
    preview: null,
    font_alternatives: 0,
    font_attempt: input.request.font_attempt ?? 0,
    fingerprint: createHash('sha256')
      .update(JSON.stringify({ refused: advice.code, page: pageIndex }))
      .digest('hex'),
  };
}

/** Damage advice for the input's file, or null when the file shows no damage. */
function adviceFor(input: EditTaskInput): ReturnType<typeof damageAdvice> | null {
  const damage = findDamage(input.pdf, input.password, input.request.page_index ?? 0);
  return damage ? damageAdvice(damage) : null;
}

async function proposeTask(input: EditTaskInput): Promise<EngineProposal> {
  try {
    return await proposeEdit(input);
  } catch (error) {
    if (!isUnexpected(error)) throw error;
    const advice = adviceFor(input);
    if (advice) return damagedProposal(input, advice);
    throw serviceFault(error);
  }
}

async function applyTask(input: EditTaskInput): ReturnType<typeof applyEdit> {
  try {
    return await applyEdit(input);
  } catch (error) {
    if (!isUnexpected(error)) throw error;
    const advice = adviceFor(input);
    if (advice) throw new DocfixError('edit_refused', advice.what, { advice, rejected: [] });
    throw serviceFault(error);
  }
}

/**
 * The same examination for the other readers of a page (OCR, preflight): the daemon asks it when
 * one of them failed unexpectedly, to answer a damaged file's failure as the file's, not its own.
 */
async function damageTask(input: {
  path: string;
  password: string;
  page_index: number;
}): Promise<ReturnType<typeof damageAdvice> | null> {
  const damage = findDamage(new Uint8Array(await readFile(input.path)), input.password, input.page_index);
  return damage ? damageAdvice(damage) : null;
}

export const correctionTasks = {
  proposeEdit: proposeTask,
  applyEdit: applyTask,
  'corrections.damage': damageTask,
};
