"""Draws COUNT boards with python-chess's chess.svg.board (the diagrams chess-tool authors
generate) into OUT/images/*.svg with OUT/manifest.csv for `infer eval`. Positions are random
legal games of 0-120 plies; orientation, coordinates, last move, check, arrows, filled and
marked squares, colours, borders and size are drawn from SEED too.

    python3 draw.py COUNT SEED OUT
"""
import csv
import os
import random
import sys

import chess
import chess.svg

THEMES = [
    {},  # python-chess's own (#ffce9e / #d18b47)
    {"square light": "#f0d9b5", "square dark": "#b58863"},  # lichess brown
    {"square light": "#eeeed2", "square dark": "#769656"},  # green
    {"square light": "#dee3e6", "square dark": "#8ca2ad"},  # blue
    {"square light": "#ffffff", "square dark": "#aaaaaa"},  # print grey
    {"square light": "#e8e0c8", "square dark": "#9b7d61", "margin": "#444444", "coord": "#dddddd"},
]
FILLS = ["#cc0000cc", "#00cc00aa", "#ffff0066", "#0000cc88", "#ff880099"]


def random_game(rng, plies):
    board = chess.Board()
    last = None
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        last = rng.choice(moves)
        board.push(last)
    return board, last


def main():
    count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    rows = []
    for i in range(count):
        board, last = random_game(rng, rng.randint(0, 120))
        white = rng.random() < 0.5
        coords = rng.random() < 0.7
        theme = rng.randrange(len(THEMES))
        squares = list(chess.SQUARES)
        arrows = [chess.svg.Arrow(rng.choice(squares), rng.choice(squares),
                                  color=rng.choice(["green", "red", "blue", "#ffaa00cc"]))
                  for _ in range(rng.choice([0, 0, 1, 2, 3]))]
        fill = {rng.choice(squares): rng.choice(FILLS) for _ in range(rng.choice([0, 0, 0, 1, 3]))}
        marked = chess.SquareSet(rng.sample(squares, rng.choice([0, 0, 0, 2])))
        svg = chess.svg.board(
            board,
            orientation=chess.WHITE if white else chess.BLACK,
            lastmove=last if rng.random() < 0.7 else None,
            check=board.king(board.turn) if board.is_check() else None,
            arrows=arrows,
            fill=fill,
            squares=marked,
            size=rng.choice([None, 200, 260, 320, 480, 800]),
            coordinates=coords,
            colors=THEMES[theme],
            borders=rng.random() < 0.3,
        )
        # The position is written in the picture's <desc>; a reader must not use it.
        svg = svg.replace(svg[svg.find("<desc>"):svg.find("</desc>") + 7], "") if "<desc>" in svg else svg
        name = "images/%04d.svg" % i
        with open(os.path.join(out, name), "w") as f:
            f.write(svg)
        rows.append([name, board.board_fen(), "diagram",
                     "white-bottom" if white else "black-bottom",
                     "python-chess %s, theme %d, %s" % (chess.__version__, theme,
                                                         "coordinates" if coords else "no coordinates"),
                     ""])
    with open(os.path.join(out, "manifest.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "placement", "kind", "orientation", "source_repo", "notes"])
        w.writerows(rows)


main()
