#!/usr/bin/env bash
# Bent boards (BENCHMARKS.md "Bent boards"): the perspective board set's first 100 boards
# (seed 7, data/configs/perspective.json) with their lines bent, read straightened and not.
#   curl   synth's `scene.curl` (a page curling towards a book's spine beyond one of the
#          board's sides, turning by up to 50 degrees at its edge), board for board the
#          persp set's scenes; the labels' corners are where the curl puts them.
#   lens   synth's `scene.lens` (radial distortion up to |k| 0.15, barrel 3 in 4).
#   k0.05, k0.12   the persp set's first 100 pictures through ImageMagick's barrel
#          distortion (`-distort Barrel "0 0 -K"`: the point at radius r, a share of half
#          the picture's shorter side, shows what lay at r (1 + K - K r)): a distortion
#          drawn by other code than synth's. Their labels' corners are the flat boards':
#          only the placements are compared. Skipped without ImageMagick's `convert`.
#
#   bash benches/bent.sh draw [SET...]    # default all four, into target/bent/<SET>
#   bash benches/bent.sh eval [SET...]    # infer eval each, straightened and not
#
# Needs a release build; k0.05 and k0.12 need the drawn board sets
# (benches/board-sets.sh draw).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/bent
persp=${BOARD_SETS:-target/board-sets}/persp
bin=${FENSCAN_BIN:-target/release}
cmd=${1:-}
shift || true
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(curl lens k0.05 k0.12)

# The perspective config with one more scene effect, always on.
synth_set() {
  local name=$1 effect=$2
  mkdir -p $dir/configs
  sed "s/\"scene\": {/\"scene\": {\n    $effect,/" data/configs/perspective.json \
    > $dir/configs/$name.json
  rm -rf "${dir:?}/$name"
  $bin/synth boards --count 100 --seed 7 --config $dir/configs/$name.json --out $dir/$name \
    > /dev/null 2> $dir/$name.log || { cat $dir/$name.log >&2; exit 1; }
}

magick_set() {
  local k=${1#k} out=$dir/$1
  command -v convert > /dev/null || { echo "bent.sh: $1 skipped (no ImageMagick)" >&2; return 0; }
  [ -f "$persp/labels.jsonl" ] || { echo "bent.sh: draw the board sets first" >&2; exit 2; }
  rm -rf "$out"
  mkdir -p "$out/images"
  head -100 "$persp/labels.jsonl" > "$out/labels.jsonl"
  sed 's/.*"file":"\([^"]*\)".*/\1/' "$out/labels.jsonl" | while read -r f; do
    convert "$persp/$f" -distort Barrel "0.0 0.0 -$k" -define png:exclude-chunks=date,time \
      "$out/$f"
  done
}

case "$cmd" in
  draw)
    for s in "${sets[@]}"; do
      case "$s" in
        curl) synth_set curl '"curl": {"probability": 1.0, "strength": 50.0}' ;;
        lens) synth_set lens '"lens": {"probability": 1.0, "strength": 0.15}' ;;
        k*) magick_set "$s" ;;
        *) echo "bent.sh: no set $s" >&2; exit 2 ;;
      esac
      if [ -d $dir/$s ]; then echo "bent.sh: $dir/$s"; fi
    done
    ;;
  eval)
    mkdir -p $dir/reports
    for s in "${sets[@]}"; do
      [ -f $dir/$s/labels.jsonl ] || { echo "bent.sh: $s not drawn" >&2; continue; }
      for how in straightened flat; do
        opt=()
        [ $how = flat ] && opt=(--no-straighten)
        $bin/infer eval "$dir/$s" --orientation white "${opt[@]}" \
          --report "$dir/reports/$s-$how" > /dev/null 2>&1 || true
        echo "$s $how: $(awk -F'|' '$2 ~ /^ all $/ {gsub(/ /, "", $5); print $5}' \
          "$dir/reports/$s-$how.md") exact"
      done
    done
    ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
esac
