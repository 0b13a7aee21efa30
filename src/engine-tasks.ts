// The registry of engine tasks that run in the daemon's engine slots (worker threads). Each task is
// a function of plain, structured-clonable data (Uint8Array, numbers, strings, plain objects) to plain
// data, so it can cross the worker boundary; DocfixError crosses as its JSON form and is rebuilt.
// Each area of the engine exports its own table; this file only joins them.
import { certificateTasks } from './certificates/tasks.ts';
import { correctionTasks } from './corrections/tasks.ts';
import { documentTasks } from './documents/tasks.ts';
import { fontTasks } from './fonts/tasks.ts';
import { ocrTasks } from './ocr/tasks.ts';
import { preflightTasks } from './preflight/tasks.ts';

export const ENGINE_TASKS = {
  ...documentTasks,
  ...correctionTasks,
  ...certificateTasks,
  ...ocrTasks,
  ...preflightTasks,
  ...fontTasks,
};

export type EngineTaskName = keyof typeof ENGINE_TASKS;
export type EngineTaskInput<N extends EngineTaskName> = Parameters<(typeof ENGINE_TASKS)[N]>[0];
export type EngineTaskOutput<N extends EngineTaskName> = Awaited<ReturnType<(typeof ENGINE_TASKS)[N]>>;
