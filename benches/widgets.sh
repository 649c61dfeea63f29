#!/usr/bin/env bash
# Boards drawn by third-party web widgets in a real browser: lichess's chessground (its
# brown board or five other lichess colours, with each of the 35 lichess piece sets of
# ../shared/pieces/lichess, six of them held out of training) and cm-chessboard (its seven
# themes, two piece sprites, three borders), and when named chessboard.js,
# react-chessboard (React 19, bundled at setup), kokopu-react (a WordPress plugin's
# board: its own six piece sets and eleven colour sets, letters on squares) and pgn-viewer
# (PgnViewerJS: nine piece styles, nine themes, book-like hatched ones), each with its
# own coordinates, last-move squares, check, markers and arrows, on a page with a header
# and a move list, screenshot by headless Chromium. Positions are synth's (seeded);
# everything else is drawn from the seed too (benches/widgets/pages.mjs). BENCHMARKS.md
# ("Third-party widgets").
#
#   bash benches/widgets.sh setup            # Chromium (apt) and the widgets (npm) into target/widgets
#   bash benches/widgets.sh draw [COUNT] [SEED] [WIDGETS] [FLAGS]   # pages + screenshots
#        into target/widgets/set-SEED; WIDGETS default chessground,cm-chessboard (or add
#        chessboardjs, react-chessboard, kokopu-react, pgn-viewer); `moves`: the squares each widget marks as the last
#        move are a move that could have been played, named in the manifest (set-SEED-moves);
#        `phone`: a phone app's screen, the board across its width (set-SEED-phone);
#        `blog`: a chess blog's post, the board among its paragraphs (set-SEED-blog);
#        `moves,phone` or `moves,blog` both (set-SEED-moves-phone, set-SEED-moves-blog);
#        `zoom` after any of those but phone: each desktop page shot at a display scale
#        or browser zoom other than 100% (0.8, 0.9, 1.1, 1.25, 1.5, 1.75, 2; drawn from
#        the seed, listed in zoom.txt), so sprites are resampled and squares fall on
#        fractional pixels (set-SEED-zoom, set-SEED-moves-zoom, set-SEED-moves-blog-zoom);
#        PGNV_THEMES=sportverlag,informator (environment): pgn-viewer's themes drawn from
#        those only
#   bash benches/widgets.sh eval [SEED] [infer eval options...]   # infer eval on them
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/widgets
bin=target/release
case "${1:-}" in
  setup)
    command -v chromium > /dev/null || {
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
    }
    mkdir -p $dir
    (cd $dir && [ -f package.json ] || npm init -y > /dev/null)
    (cd $dir && npm install --no-audit --no-fund chessground@9.2.1 cm-chessboard@8.15.1 \
      @chrisoakman/chessboardjs@1.0.0 jquery@3.7.1 react@19.3.1 react-dom@19.3.1 \
      react-chessboard@5.12.1 kokopu@4.13.4 kokopu-react@3.4.0 @mliebelt/pgn-viewer@1.6.11 \
      esbuild@0.28.2 > /dev/null)
    # react-chessboard needs React, which a page cannot import as it is: one bundle (the
    # entry is copied beside node_modules, where esbuild looks for the packages).
    cp benches/widgets/react-chessboard.jsx $dir/
    (cd $dir && ./node_modules/.bin/esbuild react-chessboard.jsx \
      --bundle --minify --jsx=automatic --define:process.env.NODE_ENV='"production"' \
      --outfile=react-chessboard.bundle.js --log-level=warning)
    # kokopu-react the same way, its sprites, sounds and fonts inlined (and a .css beside).
    cp benches/widgets/kokopu-react.jsx $dir/
    (cd $dir && ./node_modules/.bin/esbuild kokopu-react.jsx \
      --bundle --minify --jsx=automatic --define:process.env.NODE_ENV='"production"' \
      --loader:.png=dataurl --loader:.ogg=dataurl --loader:.woff=dataurl --loader:.woff2=dataurl \
      --outfile=kokopu-react.bundle.js --log-level=warning)
    echo "widgets: chromium and the widgets are in place"
    ;;
  draw)
    count=${2:-200}
    seed=${3:-1}
    widgets=${4:-chessground,cm-chessboard}
    flags=${5:-}
    case "$flags" in
      "" | moves | phone | blog | moves,phone | moves,blog | zoom | moves,zoom | blog,zoom | moves,blog,zoom) ;;
      *) echo "widgets: the fifth argument is \`moves\`, \`phone\`, \`blog\`, \`moves,phone\`, \`moves,blog\` (each but phone with \`,zoom\` after it, or \`zoom\` alone) or nothing" >&2; exit 2 ;;
    esac
    # pages.mjs draws the pages; the zoom is the screenshot's.
    zooms=()
    case "$flags" in
      *zoom) zooms=(0.8 0.9 1.1 1.25 1.5 1.75 2); flags=${flags%zoom}; flags=${flags%,} ;;
    esac
    [ -d $dir/node_modules/chessground ] || { echo "widgets: run setup first" >&2; exit 2; }
    [ -x $bin/synth ] || { echo "widgets: build first (cargo build --release --bins)" >&2; exit 2; }
    out=$dir/set-$seed${flags:+-${flags/,/-}}${zooms:+-zoom}
    rm -rf "$out"
    mkdir -p "$out/images"
    # Positions only: synth's game positions (a tenth of them random placements).
    echo '{"positions": {"random_placement": 0.1, "thinned_game": 0.3},
 "scene": {"min_board": 100, "max_board": 100}}' > "$out/positions.json"
    $bin/synth boards --count "$count" --seed "$seed" --config "$out/positions.json" \
      --out "$out/positions" > /dev/null
    node benches/widgets/pages.mjs "$out/positions/labels.jsonl" "$out" "$seed" \
      "$dir/node_modules" ../shared/pieces/lichess "$widgets" $flags
    for page in "$out"/pages/*.html; do
      name=$(basename "$page" .html)
      # A desktop browser window, or the phone pages.mjs chose (viewport and pixel ratio).
      window=1280,800 ratio=1
      if [ -f "$out/windows.txt" ]; then
        read -r _ w h ratio < <(grep "^$name " "$out/windows.txt")
        window=$w,$h
      fi
      if [ ${#zooms[@]} -gt 0 ]; then
        ratio=${zooms[$(((10#$name + seed) % ${#zooms[@]}))]}
        echo "$name $ratio" >> "$out/zoom.txt"
      fi
      # The virtual time budget lets the widgets load their sprites and lay out. Chromium
      # now and then hangs until the timeout: a second try.
      for try in 1 2; do
        timeout 60 chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
          --run-all-compositor-stages-before-draw \
          --hide-scrollbars --window-size=$window --force-device-scale-factor=$ratio --virtual-time-budget=3000 \
          --screenshot="$(pwd)/$out/images/$name.png" "file://$(pwd)/$page" > /dev/null 2>&1 || true
        [ -s "$out/images/$name.png" ] && break
      done
      [ -s "$out/images/$name.png" ] || { echo "widgets: no screenshot of $page" >&2; exit 1; }
    done
    echo "widgets: drew $count boards into $out"
    ;;
  eval)
    # SEED, or SEED-FLAGS (SEED-moves, SEED-phone, SEED-moves-phone...) for a set drawn with flags.
    seed=${2:-1}
    shift 2 || shift $#
    mkdir -p $dir/reports
    $bin/infer eval "$dir/set-$seed" --report "$dir/reports/set-$seed" "$@"
    ;;
  *)
    sed -n '2,/^set /{/^#/p}' "$0" >&2
    exit 2
    ;;
esac
