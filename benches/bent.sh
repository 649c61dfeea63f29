#!/usr/bin/env bash
# Bent boards: the perspective board set's first 100 pictures seen through a lens with
# radial distortion (ImageMagick's `-distort Barrel "0 0 -K"`: the point at radius r, a
# share of half the picture's shorter side, shows what lay at r (1 + K - K r)), so the
# boards' lines bow as on a curling page or through a wide phone lens. BENCHMARKS.md ("Bent
# boards"). The labels' corners are the flat boards': only the placements are compared.
#
#   bash benches/bent.sh draw [K...]    # default 0.05 0.12, into target/bent/k<K>
#   bash benches/bent.sh eval [K...]    # infer eval each, straightened and not
#
# Needs ImageMagick's `convert`, the drawn board sets (benches/board-sets.sh draw) and a
# release build.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/bent
persp=${BOARD_SETS:-target/board-sets}/persp
bin=${FENSCAN_BIN:-target/release}
cmd=${1:-}
shift || true
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(0.05 0.12)
case "$cmd" in
  draw)
    command -v convert > /dev/null || { echo "bent.sh: needs ImageMagick's convert" >&2; exit 2; }
    [ -f "$persp/labels.jsonl" ] || { echo "bent.sh: draw the board sets first" >&2; exit 2; }
    for k in "${ks[@]}"; do
      out=$dir/k$k
      rm -rf "$out"
      mkdir -p "$out/images"
      head -100 "$persp/labels.jsonl" > "$out/labels.jsonl"
      sed 's/.*"file":"\([^"]*\)".*/\1/' "$out/labels.jsonl" | while read -r f; do
        convert "$persp/$f" -distort Barrel "0.0 0.0 -$k" -define png:exclude-chunks=date,time \
          "$out/$f"
      done
      echo "bent.sh: $out"
    done
    ;;
  eval)
    mkdir -p $dir/reports
    for k in "${ks[@]}"; do
      for how in straightened flat; do
        opt=()
        [ $how = flat ] && opt=(--no-straighten)
        $bin/infer eval "$dir/k$k" --orientation white "${opt[@]}" \
          --report "$dir/reports/k$k-$how" > /dev/null 2>&1 || true
        echo "k $k $how: $(awk -F'|' '$2 ~ /^ all $/ {gsub(/ /, "", $5); print $5}' \
          "$dir/reports/k$k-$how.md") exact"
      done
    done
    ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
