// GET /v1/fonts: the faces tier 4 may draw a missing character with, and where each comes from —
// the bundle, fontconfig (unless DOCFIX_SYSTEM_FONTS=0) or DOCFIX_FONT_DIRS (src/fonts/machine-fonts.ts).
// Discovery runs once per process and settings, as the engine's does.
import { faceListing } from '../../src/fonts/machine-fonts.ts';
import type { Handlers } from '../services.ts';

export const fontHandlers: Handlers = {
  fonts: async ({ services }) => faceListing(services.config.fonts),
};
