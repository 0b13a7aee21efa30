// Engine tasks of the fonts area: the listing runs fontconfig (`fc-list`, a child process waited for
// synchronously), so the daemon runs it in a worker thread of the light lane, never on its event loop.
import { faceListing, type MachineFontSettings } from './machine-fonts.ts';

export const fontTasks = {
  'fonts.list': (input: { settings: MachineFontSettings }) => faceListing(input.settings),
};
