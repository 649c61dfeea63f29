#!/usr/bin/env bash
# Diagrams drawn by python-chess's chess.svg.board (what chess-tool authors generate), read
# as SVG: random legal games, half from black's side, with and without coordinates, last
# move, check, arrows, filled and X-marked squares, six colour schemes, borders, sizes
# (benches/python-chess/draw.py). BENCHMARKS.md ("python-chess diagrams").
#
#   bash benches/python-chess.sh setup                 # python-chess 1.11.2 into target/python-chess
#   bash benches/python-chess.sh draw [COUNT] [SEED]   # into target/python-chess/set-SEED
#   bash benches/python-chess.sh eval [SEED] [infer eval options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/python-chess
case "${1:-}" in
  setup)
    mkdir -p $dir
    python3 -m pip install --quiet --target $dir/lib chess==1.11.2
    ;;
  draw)
    count=${2:-300}
    seed=${3:-1}
    [ -d $dir/lib/chess ] || { echo "python-chess.sh: run setup first" >&2; exit 2; }
    rm -rf "$dir/set-$seed"
    PYTHONPATH=$dir/lib python3 benches/python-chess/draw.py "$count" "$seed" "$dir/set-$seed"
    echo "python-chess.sh: $count diagrams in $dir/set-$seed"
    ;;
  eval)
    seed=${2:-1}
    shift 2 || shift $#
    mkdir -p $dir/reports
    target/release/infer eval "$dir/set-$seed" --report "$dir/reports/set-$seed" "$@"
    ;;
  *) sed -n '2,10p' "$0"; exit 2 ;;
esac
