// Proposals kept for their apply: a verified proposal's bytes, to which the apply adds the manifest
// as a second incremental update, proven by objects to change nothing a page draws.
import { createHash } from 'node:crypto';
import { canonicalize } from '../../canonical-json.ts';
import { keepOriginalNumbers } from '../../pdf/exact-save.ts';
import { closeDocument, openPdf, type mupdf } from '../../pdf/mupdf-adapter.ts';
import { ObjectIndex } from '../../pdf/xref-index.ts';
import type { EditTaskInput, EngineProposal, EngineVerification, ManifestFacts } from '../correction.ts';
import { sha256, sha256Extending } from '../locate/pdf-bytes.ts';
import { objectsUntouched, type DeclaredObject } from '../proof/object-guard.ts';
import { keepUpdatedReach, keptReach } from '../proof/page-reach.ts';
import { streamDecoder, writtenByUpdate, type VerifyOutput } from '../proof/verify.ts';
import { embedManifestOf } from './declare.ts';
import { inputIndexOf, save } from './save-correction.ts';

/**
 * A proposal that verified, kept so that its apply does not redo the work: the apply adds the
 * manifest to these very bytes as a second incremental update, and proves by objects that nothing
 * a page draws changed between them (so the proposal's renders, MuPDF's and PDFium's, are the
 * renders of the applied bytes). Keyed by the input's hash, the password and the request; the last
 * two are kept (a proposal and its apply usually meet in the same engine slot).
 */
export interface KeptProposal {
  key: string;
  proposal: EngineProposal;
  output: Uint8Array;
  verify: Omit<VerifyOutput, 'afterRender' | 'diff'>;
  declared: DeclaredObject[];
  facts: ManifestFacts;
  textBefore: string;
  textAfter: string;
}

export const keptProposals: KeptProposal[] = [];

export const proposalKey = (input: EditTaskInput) =>
  createHash('sha256')
    .update(sha256(input.pdf))
    .update('\u0000')
    .update(input.password)
    .update('\u0000')
    .update(canonicalize(input.request))
    .digest('hex');

export function keepProposal(k: KeptProposal): void {
  const at = keptProposals.findIndex((e) => e.key === k.key);
  if (at >= 0) keptProposals.splice(at, 1);
  keptProposals.unshift(k);
  keptProposals.length = Math.min(keptProposals.length, 2);
}

/** The apply of a kept proposal: the manifest added to its bytes, checked by objects, not re-rendered. */
export function applyOnProposal(
  input: EditTaskInput,
  kept: KeptProposal,
): { proposal: EngineProposal; output: Uint8Array; verification: EngineVerification } | null {
  // A repaired file's proof compares with the repaired reading of the input (save/repair.ts), which
  // is not kept: the apply does the whole work again.
  if (kept.declared.some((d) => d.kind === 'repair')) return null;
  const opened = openPdf(kept.output, input.password);
  const doc = opened.doc;
  let final: Uint8Array = kept.output;
  let manifestDeclared: DeclaredObject[] = [];
  let numbersKept = 0;
  // The proposal's objects are read through this document (object streams decoded lazily), so it
  // stays open until the guards below are done.
  // The input is opened only if its object streams must be decoded (its objects read from them).
  let inputDoc: mupdf.PDFDocument | null = null;
  const inputIndex = inputIndexOf(input.pdf, (num) => {
    inputDoc ??= openPdf(input.pdf, input.password).doc;
    return streamDecoder(inputDoc)(num);
  });
  // Each file extends the one before it: only its appended cross-reference sections are read.
  const proposalIndex = new ObjectIndex(kept.output, streamDecoder(doc), { extends: inputIndex });
  let reopened: mupdf.PDFDocument | null = null;
  try {
    manifestDeclared = embedManifestOf(doc, input, kept.facts);
    const saved = save(doc);
    final = saved;
    try {
      const exact = keepOriginalNumbers(kept.output, saved, proposalIndex, new Map());
      final = exact.bytes;
      numbersKept = exact.restored;
    } catch {
      // MuPDF's bytes stand; the guard below then names every re-printed number.
    }
    reopened = openPdf(final, input.password).doc;
    if (reopened.wasRepaired() || reopened.countPages() !== kept.verify.pages.length) return null;
    const finalIndex = new ObjectIndex(final, streamDecoder(reopened), { extends: proposalIndex });
    // The manifest's update touches only the manifest's objects: every page draws what it drew.
    const step = objectsUntouched(kept.output, final, proposalIndex, finalIndex, manifestDeclared, {
      encrypted: opened.encrypted,
    });
    if (!step.passed || !step.compared) return null;
    // And the whole change, input to applied bytes, is what the correction declared.
    const whole = objectsUntouched(
      input.pdf,
      final,
      inputIndex,
      finalIndex,
      [...kept.declared, ...manifestDeclared],
      {
        encrypted: opened.encrypted,
      },
    );
    if (!whole.passed) return null;
    // The applied bytes are the next revision: their page graph is the proposal's, updated.
    const reach = keptReach(kept.output);
    if (reach)
      keepUpdatedReach(reach, final, reopened, writtenByUpdate(proposalIndex, finalIndex), kept.output);
    const guards = kept.verify.guards.map((g) =>
      g.name === 'objects_untouched' ? { name: g.name, passed: whole.passed, detail: whole.detail } : g,
    );
    guards.push({
      name: 'manifest_only',
      passed: true,
      detail: `the manifest was added to the verified proposal's bytes as an incremental update; ${step.detail}; no object a page draws changed, so the proposal's renders are the renders of these bytes`,
    });
    const changes = kept.verify.stream_changes as Record<string, unknown>;
    const verification: EngineVerification = {
      output_sha256: sha256Extending(final, kept.output),
      dpi: kept.verify.dpi,
      passed: true,
      failure_reason: null,
      pages: kept.verify.pages,
      guards,
      stream_changes: {
        ...changes,
        rewritten_existing: [
          ...(changes.rewritten_existing as number[]),
          ...manifestDeclared.map((d) => d.num),
        ],
        bytes_after: final.length,
        objects_compared: whole.compared,
        objects_changed_as_declared: whole.rewritten,
        objects_changed_undeclared: whole.undeclared,
        numbers_kept_as_written: (changes.numbers_kept_as_written as number) + numbersKept,
        applied_on_verified_proposal: true,
      },
      declared_box: kept.verify.declared_box,
      changed_box: kept.verify.changed_box,
      text_before: kept.textBefore,
      text_after: kept.textAfter,
    };
    return { proposal: kept.proposal, output: final, verification };
  } finally {
    closeDocument(reopened);
    closeDocument(doc);
    closeDocument(inputDoc as mupdf.PDFDocument | null);
  }
}
