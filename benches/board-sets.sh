#!/usr/bin/env bash
# The seeded synthetic board sets the classifier sections of BENCHMARKS.md measure every
# pair on, drawn and evaluated with the commands written there (sessions 7-15).
#
#   bash benches/board-sets.sh draw                   # draws the sets into $BOARD_SETS
#                                                     # (default target/board-sets); skips
#                                                     # the sets already drawn by this version
#   bash benches/board-sets.sh eval CKPT [SET...]     # infer eval on each set (all by
#                                                     # default); one line of exact boards
#                                                     # (squares); CKPT "builtin" = shipped
#
# Needs the fetched piece sets (data/fetch-pieces) and ../shared/pieces/lichess, and
# release binaries (cargo build --release --bins; $FENSCAN_BIN: a folder of binaries built
# elsewhere, to measure one build while another compiles). Reports land in
# $BOARD_SETS/reports/.
# "ruled": the eight sets whose sum BENCHMARKS.md compares; the rest are diagnostic sets,
# each in the distribution of one augmentation or degradation.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BOARD_SETS:-target/board-sets}
bin=${FENSCAN_BIN:-target/release}
E=data/pieces-extra
M=$E/more
ruled=(vw13 book13 persp vw31b persp17 ten unseen6 new7)
# Bumped when synth draws a seeded board differently: sets drawn before are redrawn.
# 2 (session 24): sets whose white men have no dark ink are kept off book themes.
# 3 (session 31): marker dots as faint as 8% (wmarks).
# 4 (session 37): engraved shading keeps its share of paper on small white men.
version=4
diagnostic=(rbook14 hbook14 dbook14 ibook mbook sbook free qvw13 qpersp faded dim squashed wmarks greyb
  stau moves panels dialog)

need() {
  for d in "$@"; do
    [ -d "$d" ] || { echo "board-sets: $d is missing (run data/fetch-pieces)" >&2; exit 2; }
  done
}

draw() {
  need ../shared/pieces/lichess $E/pychess $E/fonts $E/eboard $E/scid $E/npm $E/dreamchess \
    $E/xboard $E/pychess-data $E/chessboard-image $M
  [ -x $bin/synth ] || { echo "board-sets: build first (cargo build --release --bins)" >&2; exit 2; }
  local cfg=$dir/configs
  mkdir -p "$cfg"
  local P=(--pieces data/pieces/fenscan --pieces ../shared/pieces/lichess --pieces $E/pychess
    --pieces $E/npm --pieces $E/dreamchess --pieces $E/fonts --pieces $E/eboard --pieces $E/scid)
  local M7=(--pieces $M/gnome-simple --pieces $M/knights-gray --pieces $M/knights-plain
    --pieces $M/knights-xboard2 --pieces $M/pychess-fantasy_alt --pieces $M/pychess-prmi
    --pieces $M/unicode-notosanssymbols2)
  local WB=data/configs/white-bottom.json
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0}}' > "$cfg/book.json"
  # Odd boards (piece galleries, boards of queens, one colour only): free placements.
  echo '{"positions": {"random_placement": 0.0, "free_placement": 1.0, "thinned_game": 0.0},
 "look": {"black_bottom": 0.0}}' > "$cfg/free.json"
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0, "rough_print": 1.0}}' > "$cfg/rbook.json"
  # Pictures turned a quarter (a phone photo without its orientation tag): vw13 and persp
  # turned, board for board (the turn is drawn last).
  echo '{"look": {"black_bottom": 0.0}, "scene": {"quarter_turn": 1.0}}' > "$cfg/quarter.json"
  sed 's/"scene": {/"scene": {\n    "quarter_turn": 1.0,/' data/configs/perspective.json \
    > "$cfg/qpersp.json"
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0, "hatch_through": 1.0}}' > "$cfg/hbook.json"
  # Faded tones (a photo of a screen in daylight, newsprint): synth's fade on every board.
  echo '{"look": {"black_bottom": 0.0}, "degrade": {"fade": {"probability": 1.0, "strength": 0.6}}}' > "$cfg/faded.json"
  # Underexposed (a photo in a dim room: shadows crushed): synth's dim on every board.
  echo '{"look": {"black_bottom": 0.0}, "degrade": {"dim": {"probability": 1.0, "strength": 1.4}}}' > "$cfg/dim.json"
  # Squeezed pictures (an app that squeezes a photo into a square): the whole picture to
  # 60-100% of its width or height; half of them printed diagrams.
  echo '{"look": {"black_bottom": 0.0, "book_theme": 0.5}, "scene": {"squash": {"probability": 1.0, "strength": 0.6}}}' > "$cfg/squashed.json"
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0, "inner_lines": 1.0}}' > "$cfg/ibook.json"
  # Other widgets' marks (session 29): inset frames and glows, dots of other colours and sizes.
  echo '{"look": {"black_bottom": 0.0}, "overlays": {"frames": 1.0, "dots": 1.0}}' > "$cfg/wmarks.json"
  # Black men as the white men's drawing with a grey body (session 33: XBoard's men).
  echo '{"look": {"black_bottom": 0.0, "grey_black_men": 1.0}}' > "$cfg/greyb.json"
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0, "inner_marks": 1.0}}' > "$cfg/mbook.json"
  # A move just played, highlighted as apps do, on 70% of the boards (never on printed
  # ones), labelled (session 39: `infer eval`'s last-move counts); the two random
  # highlighted squares of the default mix off, its other marks on.
  echo '{"look": {"black_bottom": 0.0}, "overlays": {"played_move": 0.7, "last_move": 0.0}}' > "$cfg/moves.json"
  # An app's panels flush against the board (session 40): an evaluation bar beside it,
  # player strips above and below; never cropped to the board, so there is room for them.
  echo '{"look": {"black_bottom": 0.0}, "scene": {"cropped": 0.0, "app_panels": 1.0}}' > "$cfg/panels.json"
  # A dialog over every board (session 40): the men beneath are hidden; measures how many
  # of the mistakes that makes are reported (hidden squares), not exact boards.
  echo '{"look": {"black_bottom": 0.0}, "overlays": {"dialog": 1.0}}' > "$cfg/dialog.json"
  echo '{"look": {"black_bottom": 0.0, "book_theme": 1.0}, "degrade": {"sharpen": {"probability": 1.0, "strength": 2.0}}}' > "$cfg/sbook.json"
  cat > "$cfg/dbook.json" <<'EOF'
{"look": {"black_bottom": 0.0, "book_theme": 1.0}, "scene": {"min_board": 150, "max_board": 320},
 "degrade": {"halftone": {"probability": 0.5, "strength": 0.08}, "scan": {"probability": 0.3, "strength": 0.12},
 "blur": {"probability": 0.6, "strength": 1.5}, "paper": {"probability": 0.5, "strength": 0.12},
 "rescale": {"probability": 0.6, "strength": 12.0}, "jpeg": {"probability": 0.5, "strength": 15.0},
 "noise": {"probability": 0.4, "strength": 12.0}}}
EOF
  # N7: seven fetched styles trained on since session 7, under the names the recipes use.
  local n7=$dir/n7
  mkdir -p "$n7"
  local here
  here=$(pwd)
  ln -sfn "$here/$E/pychess-data/alfaerie" "$n7/alfaerie"
  ln -sfn "$here/$E/pychess-data/green" "$n7/green"
  ln -sfn "$here/$E/pychess-data/luffy" "$n7/luffy"
  ln -sfn "$here/$E/pychess-data/santa" "$n7/santa"
  ln -sfn "$here/$E/chessboard-image/sakura" "$n7/cbi-sakura"
  ln -sfn "$here/$E/chessboard-image/uscf" "$n7/cbi-uscf"
  ln -sfn "$here/$E/xboard/default" "$n7/xboard-default"
  one() {
    local name=$1
    shift
    [ "$(cat "$dir/$name/.done" 2>/dev/null)" = "$version" ] && return 0
    rm -rf "${dir:?}/$name"
    if ! $bin/synth boards "$@" --out "$dir/$name" > /dev/null 2> "$dir/$name.log"; then
      cat "$dir/$name.log" >&2
      exit 1
    fi
    echo "$version" > "$dir/$name/.done"
    echo "board-sets: drew $name"
  }
  one vw13 --count 400 --seed 21 --config $WB "${P[@]}"
  one book13 --count 300 --seed 51 --config "$cfg/book.json" "${P[@]}"
  one persp --count 300 --seed 7 --config data/configs/perspective.json
  one vw31b --count 400 --seed 31 --config $WB "${P[@]}"
  one persp17 --count 300 --seed 17 --config data/configs/perspective.json
  one ten --count 300 --seed 31 --config $WB --pieces $E/xboard --pieces $E/pychess-data \
    --pieces $E/chessboard-image
  one unseen6 --count 300 --seed 41 --config $WB --pieces $M/gnome-fancy \
    --pieces $M/knights-east-west --pieces $M/knights-knights --pieces $M/pychess-celtic \
    --pieces $M/pychess-eyes --pieces $M/pychess-skulls
  one new7 --count 300 --seed 43 --config $WB "${M7[@]}"
  one rbook14 --count 300 --seed 57 --config "$cfg/rbook.json" "${P[@]}"
  one hbook14 --count 300 --seed 59 --config "$cfg/hbook.json" "${P[@]}"
  one dbook14 --count 300 --seed 61 --config "$cfg/dbook.json" "${P[@]}"
  one ibook --count 300 --seed 63 --config "$cfg/ibook.json" "${P[@]}"
  one mbook --count 300 --seed 67 --config "$cfg/mbook.json" "${P[@]}"
  one sbook --count 300 --seed 69 --config "$cfg/sbook.json" "${P[@]}"
  one free --count 300 --seed 71 --config "$cfg/free.json" "${P[@]}"
  one qvw13 --count 400 --seed 21 --config "$cfg/quarter.json" "${P[@]}"
  one qpersp --count 300 --seed 7 --config "$cfg/qpersp.json"
  one faded --count 300 --seed 75 --config "$cfg/faded.json" "${P[@]}"
  one dim --count 300 --seed 77 --config "$cfg/dim.json" "${P[@]}"
  one squashed --count 300 --seed 79 --config "$cfg/squashed.json" "${P[@]}"
  one wmarks --count 300 --seed 81 --config "$cfg/wmarks.json" "${P[@]}"
  one greyb --count 300 --seed 83 --config "$cfg/greyb.json" "${P[@]}"
  # Turned 3D-looking men (session 38): synth's procedural Staunton sets. Seed 1 is for
  # training recipes ($dir/staunton), seed 2 only ever drawn here (stau).
  $bin/synth staunton --out "$dir/staunton" --count 12 --seed 1 --overwrite 2> /dev/null
  $bin/synth staunton --out "$dir/staunton-eval" --count 8 --seed 2 --overwrite 2> /dev/null
  one stau --count 300 --seed 85 --config $WB --pieces "$dir/staunton-eval"
  one moves --count 300 --seed 87 --config "$cfg/moves.json" "${P[@]}"
  one panels --count 300 --seed 89 --config "$cfg/panels.json" "${P[@]}"
  one dialog --count 300 --seed 91 --config "$cfg/dialog.json" "${P[@]}"
  echo "board-sets: all in $dir (training recipes: N7 = --pieces $n7, ST = --pieces $dir/staunton)"
}

evaluate() {
  local ckpt=${1:?usage: board-sets.sh eval CKPT [SET...]}
  shift
  local sets=("$@")
  [ ${#sets[@]} -gt 0 ] || sets=("${ruled[@]}" "${diagnostic[@]}")
  local opt=()
  [ "$ckpt" = builtin ] || opt=(--checkpoint "$ckpt")
  mkdir -p "$dir/reports"
  local tag line sum=0 exact
  tag=$(basename "$ckpt")
  line=$tag
  for s in "${sets[@]}"; do
    [ -f "$dir/$s/.done" ] || { echo "board-sets: $s is not drawn (board-sets.sh draw)" >&2; exit 2; }
    [ "$(cat "$dir/$s/.done")" = "$version" ] \
      || { echo "board-sets: $s was drawn by an older synth (board-sets.sh draw redraws it)" >&2; exit 2; }
    # Only a missing report is a failure here (its log says why).
    rm -f "$dir/reports/$tag-$s.md"
    $bin/infer eval "$dir/$s" --orientation white "${opt[@]}" \
      --report "$dir/reports/$tag-$s" > /dev/null 2> "$dir/reports/$tag-$s.log" || true
    if [ ! -f "$dir/reports/$tag-$s.md" ]; then
      tail -3 "$dir/reports/$tag-$s.log" >&2
      echo "board-sets: eval of $s failed" >&2
      exit 1
    fi
    # The "all" row: | all | images | no board | exact | 1 wrong | 2+ wrong | squares | ...
    exact=$(awk -F'|' '$2 ~ /^ all $/ {gsub(/ /, "", $5); print $5}' "$dir/reports/$tag-$s.md")
    line="$line | $s $exact ($(awk -F'|' '$2 ~ /^ all $/ {gsub(/ /, "", $8); print $8}' \
      "$dir/reports/$tag-$s.md"))"
    for r in "${ruled[@]}"; do
      [ "$r" = "$s" ] && sum=$(awk -v a="$sum" -v b="${exact%\%}" 'BEGIN {print a + b}')
    done
  done
  echo "$line | sum of the ruled sets evaluated $sum"
}

case "${1:-}" in
draw) shift; draw "$@" ;;
eval) shift; evaluate "$@" ;;
*) sed -n '2,15p' "$0"; exit 2 ;;
esac
