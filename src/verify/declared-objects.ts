// What a docfix manifest allows to change, object by object, re-derived from the manifest and the
// original alone. The manifest names pages, not objects; the engine's writer (corrections/write.ts)
// changes existing objects in exactly these places: the dictionary of each corrected page (its
// /Contents and the fonts and forms of its /Resources), an annotation of that page whose appearance
// was corrected, and — for the manifest itself — the catalog, its /Names and the embedded-files
// tree. Everything else it writes is a new object, reached only through those keys. So the declared
// objects of a manifest are those, each with its kind; the object guard then allows changes only at
// that kind's keys (corrections/object-guard.ts).
import type { DeclaredObject } from '../corrections/proof/object-guard.ts';
import type { Manifest } from '../corrections/save/manifest.ts';
import { refsOf } from '../corrections/proof/verify.ts';
import type { mupdf } from '../pdf/mupdf-adapter.ts';

const numOf = (o: mupdf.PDFObject | null | undefined): number | null =>
  o && o.isIndirect() ? o.asIndirect() : null;

/** The objects of `original` that the corrections `manifest` lists may rewrite, with their kinds. */
export function declaredByManifest(original: mupdf.PDFDocument, manifest: Manifest): DeclaredObject[] {
  const declared = new Map<number, DeclaredObject>();
  const add = (num: number | null, kind: DeclaredObject['kind']) => {
    if (num !== null && num > 0 && !declared.has(num)) declared.set(num, { num, kind });
  };
  const pageCount = original.countPages();
  const pages = new Set(manifest.corrections.map((c) => c.page).filter((p) => p >= 0 && p < pageCount));
  for (const index of pages) {
    const page = original.findPage(index);
    add(numOf(page), 'page');
    const annots = page.get('Annots');
    if (annots.isArray()) for (let i = 0; i < annots.length; i += 1) add(numOf(annots.get(i)), 'annotation');
  }
  const root = original.getTrailer().get('Root');
  add(numOf(root), 'catalog');
  const names = root.get('Names');
  add(numOf(names), 'names');
  if (names.isDictionary()) add(numOf(names.get('EmbeddedFiles')), 'name tree');
  return [...declared.values()];
}

/**
 * Which objects each page draws from: the page dictionary and everything it references (contents,
 * resources, fonts, forms, annotations and their appearances), not following back-links such as
 * /Parent (corrections/verify.ts refsOf). Each object's references are read once and kept.
 */
export class PageReach {
  readonly #doc: mupdf.PDFDocument;
  readonly #refs = new Map<number, number[]>();

  constructor(doc: mupdf.PDFDocument) {
    this.#doc = doc;
  }

  #refsOf(num: number): number[] {
    let refs = this.#refs.get(num);
    if (!refs) {
      try {
        refs = refsOf(this.#doc.newIndirect(num).resolve().toString(true));
      } catch {
        refs = [];
      }
      this.#refs.set(num, refs);
    }
    return refs;
  }

  /** The members of `targets` that page `index` reaches, ascending. */
  reached(index: number, targets: Set<number>): number[] {
    if (targets.size === 0) return [];
    const page = this.#doc.findPage(index);
    const start = page.isIndirect() ? [page.asIndirect()] : refsOf(page.toString(true));
    const seen = new Set<number>(start);
    const stack = [...start];
    const hits: number[] = [];
    while (stack.length) {
      const num = stack.pop()!;
      if (targets.has(num)) hits.push(num);
      for (const next of this.#refsOf(num)) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return hits.sort((x, y) => x - y);
  }
}
