#!/usr/bin/env bash
# Builds a real-world corpus the engine was not tuned on, from Debian packages, for the fidelity
# harness: TeX Live documentation in Cyrillic, Chinese, Korean and Arabic, CUPS test pages and
# program manuals (producers: pdfTeX, XeTeX, LuaTeX, dvipdfmx, Ghostscript, cairo, LibreOffice,
# iText, PowerPoint). The PDFs are fetched with `apt-get download` into DIR, never into the
# repository; the harness derives the tasks itself (no manifest):
#
#   scripts/debian-corpus.sh /tmp/debian-corpus
#   ../shared/tools/fidelity/run.sh . /tmp/debian-corpus/main  --out /tmp/fid-main
#   ../shared/tools/fidelity/run.sh . /tmp/debian-corpus/more  --out /tmp/fid-more
#   ../shared/tools/fidelity/run.sh . /tmp/debian-corpus/fresh --out /tmp/fid-fresh
#   ../shared/tools/fidelity/run.sh . /tmp/debian-corpus/type3 --out /tmp/fid-type3
#   ../shared/tools/fidelity/run.sh . /tmp/debian-corpus/late  --out /tmp/fid-late
#
# `main` is a chosen 34 files; `more` every fourth other PDF of the same packages (47 files);
# `fresh` another fourth of them (33 files); `type3` the other five of the packages' PDFs that set
# letters in Type 3 bitmap fonts (pdfTeX and dvipdfm pk fonts), unseen while tier 4 learnt them;
# `late` a last fourth of the rest (23 files), unseen while lines learnt to be re-spaced.
# Needs apt-get (network to Debian's mirrors), dpkg-deb and pdfinfo.
set -euo pipefail
out=${1:?usage: scripts/debian-corpus.sh DIR}
mkdir -p "$out/debs" "$out/x" "$out/main" "$out/more" "$out/fresh" "$out/type3" "$out/late"
cd "$out/debs"
packages=(texlive-lang-cyrillic texlive-lang-korean texlive-lang-arabic texlive-lang-chinese cups-filters
  gnuplot-doc asymptote-doc)
apt-get download "${packages[@]}" >/dev/null
for deb in *.deb; do dpkg-deb -x "$deb" ../x; done
cd ..
doc=x/usr/share/doc/texlive-doc
chosen=(
  bibtex/gost/examples/utf8/ugost2008.pdf latex/churchslavonic/churchslavonic-en.pdf
  latex/churchslavonic/churchslavonic-ru.pdf generic/babel-russian/russianb.pdf
  latex/lshort-russian/lshortru.pdf latex/cyrillic/lcy.pdf latex/serbian-lig/serbian-lig.pdf
  latex/lshort-ukr/lshort-ukr.pdf latex/eskd/eskd.pdf latex/numnameru/numnameru.pdf
  latex/xecyrmongolian/xecyrmongolian.pdf latex/ctex-faq/ctex-faq.pdf
  latex/lshort-chinese/lshort-zh-cn.pdf generic/zhspacing/zhs-man.pdf
  generic/latex-notes-zh-cn/latex-notes-zh-cn.pdf generic/upzhkinsoku/upzhkinsoku-doc.pdf
  latex/fduthesis/fduthesis-en.pdf latex/lshort-korean/lshort-ko.pdf latex/cjk-ko/cjk-ko-doc.pdf
  fonts/nanumtype1/nanum-sampler.pdf latex/kotex-oblivoir/oblivoir-simpledoc.pdf
  latex/pmhanguljamo/pmhanguljamo-doc.pdf latex/arabi/samplebook.pdf latex/arabtex/arabtex-doc.pdf
  latex/quran/quran-test.pdf latex/hvarabic/hvarabic.pdf
  latex/texnegar/texnegar-xetex-xepersian-glyph.pdf fonts/alkalami/AlkalamiSample.pdf
  latex/lshort-persian/lshort.pdf latex/russ/russ_doc.pdf
)
for f in "${chosen[@]}"; do cp "$doc/$f" "main/$(basename "$(dirname "$f")")--$(basename "$f")"; done
for f in default-testpage form_english form_russian classified; do
  cp "x/usr/share/cups/data/$f.pdf" "main/cups--$f.pdf"
done
cp x/usr/share/doc/gnuplot/gnuplot.pdf more/manual--gnuplot.pdf
cp x/usr/share/doc/asymptote/asymptote.pdf more/manual--asymptote.pdf
# slice N DIR: every fourth PDF between 8 KB and 1.5 MB not taken yet (by name, in name order),
# starting at the Nth, at most 45, copied into DIR.
slice() {
  local taken
  taken=" $(ls main more fresh late | grep '\.pdf$' | tr '\n' ' ') $(ls type3 | sed 's/-/--/' | tr '\n' ' ') "
  find x -name '*.pdf' -size +8k -size -1500k | sort | while read -r f; do
    name="$(basename "$(dirname "$f")")--$(basename "$f")"
    case "$taken" in *" $name "*) continue ;; esac
    echo "$f"
  done | awk -v n="$1" 'NR % 4 == n % 4' | head -45 | while read -r f; do
    cp "$f" "$2/$(basename "$(dirname "$f")")--$(basename "$f")"
  done
}
slice 1 more
# `fresh`: a third slice, kept unseen while engine changes are made.
slice 3 fresh
for f in latex/arabi/fontchart_farsi.pdf latex/arabi/test_beamer.pdf latex/arabi/user_guide.pdf \
  latex/montex/mlsquick.pdf generic/ukrhyph/rules90.pdf; do
  cp "$doc/$f" "type3/$(basename "$(dirname "$f")")-$(basename "$f")"
done
slice 2 late
echo "$(ls main | wc -l) files in $out/main, $(ls more | wc -l) in $out/more, $(ls fresh | wc -l) in $out/fresh, $(ls type3 | wc -l) in $out/type3, $(ls late | wc -l) in $out/late"
