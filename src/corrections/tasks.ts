// Engine tasks of the corrections area: propose and apply (apply verifies the bytes it saved).
// Inputs and outputs are plain data so they cross the worker-thread boundary (src/engine-tasks.ts).
import { applyEdit, proposeEdit } from './engine.ts';

export type { EditTaskInput, EngineProposal, EngineVerification } from './engine.ts';

export const correctionTasks = { proposeEdit, applyEdit };
