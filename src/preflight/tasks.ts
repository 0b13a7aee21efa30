// Engine tasks of the preflight area.
import { preflightPage, type PreflightTaskInput } from './page-preflight.ts';

export const preflightTasks = {
  'preflight.page': (input: PreflightTaskInput) => preflightPage(input),
};
