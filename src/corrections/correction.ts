// The shapes a correction passes between the engine's stages and out of the engine: the task's
// input, the proposal and verification it answers, a candidate correction made in memory, and the
// facts its manifest records. Types and one rule (the visibility cost); the stages may import it.
import type { RgbImage } from '../pdf/mupdf-adapter.ts';
import type { EditRequest, ProposalOut, TierRejection, VerificationOut } from '../schemas.ts';
import type { DeclaredObject, RepairedObject } from './proof/object-guard.ts';
import type { Box } from './proof/render-diff.ts';
import type { VerifyOutput } from './proof/verify.ts';
import type { ManifestInput } from './save/manifest.ts';
import type { ServedCrop } from './scan/tier5.ts';

export interface EditTaskInput {
  pdf: Uint8Array;
  password: string;
  request: EditRequest;
  manifest: ManifestInput;
  /** Crops of this revision served to the account (crop.png), for an OCR match's `confirmed`. */
  served_regions?: ServedCrop[];
}

export type EngineProposal = Omit<ProposalOut, 'proposal_id' | 'confirm_token' | 'document_id'> & {
  fingerprint: string;
};

export type EngineVerification = Omit<VerificationOut, 'verification_id' | 'revision_id'> & {
  declared_box: number[];
  changed_box: number[] | null;
  text_before: string;
  text_after: string;
};

export const ENGINE_VERSION = 'docfix-engine/1';

export interface Candidate {
  tier: number;
  /** Tier 5 says its own cost, a re-spaced line costs `low`; otherwise it follows from the tier. */
  cost?: 'low' | 'medium';
  fontAlternatives: number;
  explanation: string;
  measurements: Record<string, unknown>;
  warnings: string[];
  rejected: TierRejection[];
  output: Uint8Array;
  verify: VerifyOutput;
  beforeRender: RgbImage;
  fingerprint: string;
  textBefore: string;
  textAfter: string;
  box: Box;
  /** Objects the correction declared (for the structural guard) and what its manifest records. */
  declared: DeclaredObject[];
  /**
   * Rows (300 dpi) of the edited line's band, full width, where a rewrite can move glyphs: PDFium's
   * witness renders only these when the structural guard passed (null: the whole page).
   */
  band: [number, number] | null;
  facts: ManifestFacts;
}

export interface ManifestFacts {
  page: number;
  box: Box;
  find: string;
  replacement: string;
  tier: number;
  /** Tier 5's cost (low for cloned letters, medium for drawn ones), `low` for a re-spaced line or a repaired file; else the tier's. */
  cost?: 'low' | 'medium';
  /** Tier 5 on a match that needed a person: what the engine checked. */
  confirmation?: Record<string, unknown>;
  /** A damaged input saved repaired: the objects the repair changed, and why (save/repair.ts). */
  repaired_objects?: RepairedObject[];
}

/** A proposal's visibility cost: tier 5 and a re-spaced line say their own; tier 4 draws in another face (low); else none. */
export function costOf(f: { tier: number; cost?: 'low' | 'medium' }): 'none' | 'low' | 'medium' {
  return f.cost ?? (f.tier === 4 ? 'low' : 'none');
}
