// A font subset's tag: six characters and a plus sign before the font's name ("ABCDEF+NotoSerif").
// The PDF specification asks for six uppercase letters; Prawn (asciidoctor-pdf) writes six lowercase
// hexadecimal digits ("2d90a6+NotoSerif"). Read either, or the font is taken for an unknown face
// named "2d90a6+NotoSerif": no bundled face matches it and its sibling subsets are not found.
const SUBSET_TAG = /^[A-Za-z0-9]{6}\+/;

/** Whether a font's name starts with a subset tag. */
export function hasSubsetTag(name: string): boolean {
  return SUBSET_TAG.test(name);
}

/** A font's name without its subset tag. */
export function withoutSubsetTag(name: string): string {
  return name.replace(SUBSET_TAG, '');
}
