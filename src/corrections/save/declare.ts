// The save stage, first half: every object the correction rewrote or added declared with its kind
// for the structural guard, and at apply the provenance manifest embedded (manifest.ts).
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { costOf, type EditTaskInput, type ManifestFacts } from '../correction.ts';
import { WORKING_DPI } from '../locate/page-text.ts';
import type { DeclaredObject } from '../proof/object-guard.ts';
import { TIER_NAMES } from '../refusals.ts';
import type { ChangedObject } from '../rewrite/write.ts';
import { buildManifest, embedManifest } from './manifest.ts';

/**
 * Every existing object rewritten, and every new object copied from an existing one, declared with
 * its kind: the structural guard allows changes only at that kind's keys. An apply embeds the
 * manifest here (the catalog is then rewritten too).
 */
export function declareObjects(
  doc: mupdf.PDFDocument,
  input: EditTaskInput,
  page: mupdf.PDFPage,
  facts: ManifestFacts,
  changedObjects: ChangedObject[],
  forApply: boolean,
): { declared: DeclaredObject[]; rewrittenExisting: number[] } {
  const rewrittenExisting = [page.getObject().asIndirect()];
  const manifestObjects: DeclaredObject[] = [];
  if (forApply) {
    manifestObjects.push(...embedManifestOf(doc, input, facts));
    const catalog = manifestObjects.find((d) => d.kind === 'catalog');
    if (catalog) rewrittenExisting.push(catalog.num);
  }
  const declared: DeclaredObject[] = [{ num: rewrittenExisting[0], kind: 'page' }, ...manifestObjects];
  for (const c of changedObjects) {
    if (c.kind === 'annotation' && c.num > 0) {
      // An annotation whose appearance was corrected: an existing object, rewritten at /AP.
      declared.push({ num: c.num, kind: 'annotation' });
      rewrittenExisting.push(c.num);
      continue;
    }
    if (c.num === c.replaces || declared.some((d) => d.num === c.num)) continue;
    const copy =
      c.replaces > 0 &&
      (c.kind === 'font' ||
        c.kind === 'type3 font' ||
        c.kind === 'form xobject' ||
        c.kind === 'annotation appearance' ||
        c.kind === 'resources');
    declared.push(copy ? { num: c.num, kind: c.kind, from: c.replaces } : { num: c.num, kind: c.kind });
  }
  return { declared, rewrittenExisting };
}

/**
 * Embeds the provenance manifest of a correction. Returns the existing objects it rewrites (the
 * catalog, its /Names dictionary and the embedded-files tree), each declared — before the embedding,
 * since it may replace the tree — for the structural guard.
 */
export function embedManifestOf(
  doc: mupdf.PDFDocument,
  input: EditTaskInput,
  f: ManifestFacts,
): DeclaredObject[] {
  const manifest = buildManifest(input.manifest, {
    page: f.page,
    box_render: f.box,
    box_dpi: WORKING_DPI,
    text_before: f.find,
    text_after: f.replacement,
    tier: f.tier,
    tier_name: TIER_NAMES[f.tier],
    visibility_cost: costOf(f),
    created_at: new Date().toISOString(),
    ...(f.confirmation ? { confirmation: f.confirmation } : {}),
    ...(f.repaired_objects?.length ? { repaired_objects: f.repaired_objects } : {}),
  });
  const declared: DeclaredObject[] = [];
  const root = doc.getTrailer().get('Root');
  const names = root.get('Names');
  if (names.isIndirect()) declared.push({ num: names.asIndirect(), kind: 'names' });
  const tree = names.isDictionary() ? names.get('EmbeddedFiles') : null;
  if (tree?.isIndirect()) declared.push({ num: tree.asIndirect(), kind: 'name tree' });
  embedManifest(doc, manifest);
  if (root.isIndirect()) declared.push({ num: root.asIndirect(), kind: 'catalog' });
  return declared;
}
