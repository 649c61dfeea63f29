#!/usr/bin/env bash
# Chess diagrams as LaTeX typesets them (the `chessboard` and `xskak` packages of TeX
# Live's texlive-games, the skak font's men; how chess books, papers and exercise sheets are
# made): random legal games, a third from black's side, hatched or filled dark squares,
# coordinates or none, the side-to-move marker, frames, marked squares and arrows, captions
# and paragraphs around as on a book page; rendered by MuPDF at 96-200 dpi, trimmed, some
# saved as JPEG (benches/latex/draw.py). BENCHMARKS.md ("LaTeX diagrams").
#
#   bash benches/latex.sh setup                 # TeX Live packages and MuPDF (apt), python-chess
#   bash benches/latex.sh draw [COUNT] [SEED]   # into target/latex/set-SEED
#   bash benches/latex.sh eval [SEED] [infer eval options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/latex
case "${1:-}" in
  setup)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-plain-generic \
      texlive-pictures texlive-games mupdf-tools imagemagick > /dev/null
    mkdir -p $dir
    python3 -m pip install --quiet --target $dir/lib chess==1.11.2
    echo "latex.sh: TeX Live, MuPDF and python-chess are in place"
    ;;
  draw)
    count=${2:-200}
    seed=${3:-1}
    [ -d $dir/lib/chess ] || { echo "latex.sh: run setup first" >&2; exit 2; }
    out=$dir/set-$seed
    rm -rf "$out"
    mkdir -p "$out/images"
    PYTHONPATH=$dir/lib python3 benches/latex/draw.py "$count" "$seed" "$out"
    (cd "$out" && pdflatex -interaction=nonstopmode -halt-on-error diagrams.tex > latex.log 2>&1) ||
      { echo "latex.sh: pdflatex failed, see $out/latex.log" >&2; exit 1; }
    echo "file,placement,kind,orientation,source_repo,notes" > "$out/manifest.csv"
    tail -n +2 "$out/pages.csv" | while IFS=, read -r name page dpi jpeg pad placement orientation source; do
      mutool draw -q -r "$dpi" -o "$out/page.png" "$out/diagrams.pdf" "$page" 2> /dev/null
      ext=png quality=()
      if [ "$jpeg" != 0 ]; then ext=jpg quality=(-quality "$jpeg"); fi
      convert "$out/page.png" -trim +repage -bordercolor white -border "$pad" "${quality[@]}" \
        "$out/images/$name.$ext"
      echo "images/$name.$ext,$placement,diagram,$orientation,$source,${dpi} dpi" >> "$out/manifest.csv"
    done
    rm -f "$out/page.png"
    echo "latex.sh: drew $count diagrams into $out"
    ;;
  eval)
    seed=${2:-1}
    shift 2 || shift $#
    mkdir -p $dir/reports
    target/release/infer eval "$dir/set-$seed" --report "$dir/reports/set-$seed" "$@"
    ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
