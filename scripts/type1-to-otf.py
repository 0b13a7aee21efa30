"""Converts a Type 1 font (PFB) to an OpenType font with CFF outlines, for fonts/ (tier 4 embeds
TrueType or CFF only). Outlines, advance widths, names and the notice are carried over unchanged;
the cmap maps each glyph by its Adobe glyph name. Needs Debian's python3-fonttools.

    /usr/bin/python3 scripts/type1-to-otf.py IN.pfb OUT.otf [--rename FAMILY PSFAMILY]

--rename gives the converted font another family and PostScript name (PSFAMILY-Style) and keeps of
the notice only the sentences without the old family name: a licence that lets a modified font be
redistributed only under another name (Adobe's Utopia licence to TUG) is kept that way.
"""
import re
import sys

from fontTools.agl import toUnicode
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.boundsPen import BoundsPen
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.t1Lib import T1Font


def convert(src: str, dst: str, rename: tuple[str, str] | None = None) -> None:
    t1 = T1Font(src)
    t1.parse()
    info = t1.font["FontInfo"]
    ps_name = t1.font["FontName"]
    glyphs = t1.getGlyphSet()
    order = [".notdef"] + sorted(n for n in glyphs.keys() if n != ".notdef")
    charstrings, metrics, cmap = {}, {}, {}
    for name in order:
        glyph = glyphs[name]
        bounds = BoundsPen(glyphs)
        glyph.draw(bounds)  # runs the charstring, which sets glyph.width (hsbw)
        pen = T2CharStringPen(glyph.width, glyphs)
        glyph.draw(pen)
        charstrings[name] = pen.getCharString()
        metrics[name] = (round(glyph.width), round(bounds.bounds[0]) if bounds.bounds else 0)
        text = toUnicode(name)
        if len(text) == 1 and ord(text) not in cmap:
            cmap[ord(text)] = name
    fb = FontBuilder(1000, isTTF=False)
    fb.setupGlyphOrder(order)
    fb.setupCharacterMap(cmap)
    family = info.get("FamilyName", ps_name)
    style = {"Normal": "Regular", "Medium": "Regular"}.get(info.get("Weight", ""), info.get("Weight", ""))
    if info.get("ItalicAngle", 0):
        style = "Italic" if style == "Regular" else f"{style} Italic"
    notice = info.get("Notice", "")
    full_name = info.get("FullName", ps_name)
    if rename:
        old = family
        family, ps_family = rename
        ps_name = f"{ps_family}-{style.replace(' ', '')}"
        full_name = f"{family} {style}"
        kept = [x for x in re.split(r"(?<=\.)\s+", notice) if old.lower() not in x.lower()]
        notice = " ".join(kept + ["Converted to OpenType and renamed from Type 1 font software under its licence."])
    fb.setupNameTable(
        {
            "copyright": notice,
            "familyName": family,
            "styleName": style,
            "uniqueFontIdentifier": ps_name,
            "fullName": full_name,
            "psName": ps_name,
            "version": f"Version {info.get('version', '1.0')}",
        }
    )
    top = {"FullName": full_name, "Notice": notice} | ({"FamilyName": family} if rename else {})
    fb.setupCFF(ps_name, top, charstrings, {})
    fb.setupHorizontalMetrics(metrics)
    bbox = t1.font["FontBBox"]
    fb.setupHorizontalHeader(ascent=bbox[3], descent=bbox[1])
    bold = "Bold" in style
    italic = "Italic" in style
    fb.setupOS2(
        usWeightClass=700 if bold else 400,
        fsSelection=(1 if italic else 0) | (32 if bold else 0) | (64 if not (bold or italic) else 0),
        sTypoAscender=bbox[3],
        sTypoDescender=bbox[1],
        usWinAscent=bbox[3],
        usWinDescent=-bbox[1],
        fsType=0,
    )
    fb.updateHead(macStyle=(1 if bold else 0) | (2 if italic else 0))
    fb.setupPost(italicAngle=info.get("ItalicAngle", 0), isFixedPitch=int(bool(info.get("isFixedPitch"))))
    fb.save(dst)


if __name__ == "__main__":
    args = sys.argv[1:]
    renamed = None
    if "--rename" in args:
        at = args.index("--rename")
        renamed = (args[at + 1], args[at + 2])
        del args[at : at + 3]
    convert(args[0], args[1], renamed)
