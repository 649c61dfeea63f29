#!/usr/bin/env bash
# Screenshots of desktop chess programs under Xvfb, drawn by the programs themselves from
# random legal games played to the end, white or black at the bottom:
# - xboard: XBoard 4.9 (Debian's xboard), its own pieces or lichess sets, wood/hatched/
#   coloured squares, grid lines, coordinates, last-move arrows or frames
#   (benches/desktop/xboard.py);
# - chessx: ChessX 1.4.6 (Debian's chessx), a database program with docks and lists around
#   the board, its seven piece sets and twelve textures, frame, coordinates
#   (benches/desktop/chessx.py);
# - scid: Scid 4.7 (Debian's scid), a database program (Tcl/Tk), its piece sets, textures,
#   four coordinate styles, game-info panel (benches/desktop/scid.py).
# BENCHMARKS.md ("Desktop programs").
#
#   bash benches/desktop.sh setup                          # xvfb, openbox, xboard, chessx,
#        # scid, xwd, xdotool, imagemagick (apt); python-chess (benches/python-chess.sh setup)
#   bash benches/desktop.sh draw PROGRAM [COUNT] [SEED]    # into target/desktop/PROGRAM-SEED
#   bash benches/desktop.sh eval PROGRAM [SEED] [infer eval options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/desktop
case "${1:-}" in
  setup)
    command -v Xvfb > /dev/null && [ -x /usr/games/xboard ] && [ -x /usr/games/chessx ] \
      && [ -x /usr/games/scid ] \
      && command -v openbox > /dev/null && command -v xwd > /dev/null \
      && command -v xdotool > /dev/null && command -v convert > /dev/null || {
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb openbox xboard chessx scid \
        x11-apps xdotool imagemagick > /dev/null
    }
    [ -d target/python-chess/lib/chess ] || bash benches/python-chess.sh setup
    ;;
  draw)
    program=${2:-}
    count=${3:-200}
    seed=${4:-1}
    case "$program" in
      xboard) extra=(../shared/pieces/lichess) ;;
      chessx | scid) extra=() ;;
      *) echo "desktop.sh: PROGRAM is xboard, chessx or scid" >&2; exit 2 ;;
    esac
    [ -x "/usr/games/$program" ] && [ -d target/python-chess/lib/chess ] \
      || { echo "desktop.sh: run setup first" >&2; exit 2; }
    rm -rf "$dir/$program-$seed"
    mkdir -p $dir
    PYTHONPATH=target/python-chess/lib python3 "benches/desktop/$program.py" "$count" "$seed" \
      "$dir/$program-$seed" "${extra[@]}"
    echo "desktop.sh: $count $program screenshots in $dir/$program-$seed"
    ;;
  eval)
    program=${2:-}
    seed=${3:-1}
    shift 3 || shift $#
    mkdir -p $dir/reports
    target/release/infer eval "$dir/$program-$seed" --report "$dir/reports/$program-$seed" "$@"
    ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
