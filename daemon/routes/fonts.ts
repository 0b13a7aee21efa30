// GET /v1/fonts: the faces tier 4 may draw a missing character with, and where each comes from —
// the bundle, fontconfig (unless DOCFIX_SYSTEM_FONTS=0 or `serve --no-system-fonts`) or the font
// folders (DOCFIX_FONT_DIRS, `serve --font-dir`) (src/fonts/machine-fonts.ts). Listed in the light
// lane: discovery runs fc-list, once per thread and settings, as the engine's does.
import type { Handlers } from '../services.ts';

export const fontHandlers: Handlers = {
  fonts: async ({ services }) =>
    services.engine.run('fonts.list', { settings: services.config.fonts }, { lane: 'light' }),
};
