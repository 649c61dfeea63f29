"""Writes COUNT chess diagrams as LaTeX typesets them (the `chessboard` package, the way
chess books and papers are made) into OUT/diagrams.tex, one diagram a page, and
OUT/pages.csv with each page's truth and how to rasterise it. Positions are random legal
games of 0-120 plies (python-chess); the rest is drawn from SEED: board size, hatched
dark squares (the skak font's own) or filled ones in a print colour, coordinates or none,
black at the bottom, the side-to-move marker, frame width, squares framed and arrows as
annotators draw them, a caption, paragraphs of text around it as on a book page; then the
resolution (and a JPEG quality) for each page's picture.

    python3 draw.py COUNT SEED OUT
"""
import csv
import os
import random
import sys

import chess

# Print colours for filled dark squares (chessboard's `blackfieldcolor` with
# `setfontcolors` and the LSBC4 encoding's masks), light squares white or a faint cream.
DARK_FILLS = ["gray!35", "gray!55", "black!25", "brown!45", "green!35!gray", "blue!25!gray"]
LIGHT_FILLS = ["white", "white", "yellow!8"]
WORDS = ("the white rook takes the open file while black hurries his king to the centre "
         "after the exchange of queens the endgame is about even but the pawn structure "
         "favours white who can create a passed pawn on the queenside with best play").split()


def random_game(rng, plies):
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def paragraph(rng):
    n = rng.randint(25, 70)
    text = " ".join(rng.choice(WORDS) for _ in range(n))
    return text[0].upper() + text[1:] + "."


def diagram(rng, board):
    """The \\chessboard options for one diagram, and whether black is at the bottom."""
    black_bottom = rng.random() < 0.3
    opts = [f"setfen={board.fen()}", f"boardfontsize={rng.choice([14, 16, 18, 20, 20, 24, 28])}pt"]
    if black_bottom:
        opts.append("inverse")
    label = rng.random() < 0.7
    if not label:
        opts.append("label=false")
    opts.append("showmover=" + ("true" if rng.random() < 0.4 else "false"))
    if rng.random() < 0.35:
        dark, light = rng.choice(DARK_FILLS), rng.choice(LIGHT_FILLS)
        # The LSBC4 encoding's masks fill the squares under the men too.
        opts += ["boardfontencoding=LSBC4", "setfontcolors", f"blackfieldcolor={dark}",
                 f"whitefieldcolor={light}", f"blackfieldmaskcolor={dark}",
                 f"whitefieldmaskcolor={light}"]
    opts.append(f"borderwidth={rng.choice(['0.4pt', '0.4pt', '1pt', '2pt', '3pt'])}")
    squares = [chess.square_name(s) for s in chess.SQUARES]
    if rng.random() < 0.2:
        opts += ["pgfstyle=border", f"color={rng.choice(['red', 'blue', 'black', 'green!50!black'])}",
                 "markfields={" + ",".join(rng.sample(squares, rng.randint(1, 3))) + "}"]
    if rng.random() < 0.2:
        moves = []
        for _ in range(rng.randint(1, 2)):
            a, b = rng.sample(squares, 2)
            moves.append(f"{a}-{b}")
        opts += ["pgfstyle=straightmove", "arrow=to", f"color={rng.choice(['black', 'red', 'blue'])}",
                 "markmoves={" + ",".join(moves) + "}"]
    return opts, black_bottom


def main():
    count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    pages, rows = [], []
    for i in range(count):
        board = random_game(rng, rng.randint(0, 120))
        opts, black_bottom = diagram(rng, board)
        body = []
        book_page = rng.random() < 0.5
        if book_page:
            body.append(paragraph(rng) + "\n")
        body.append("\\begin{center}\n\\chessboard[" + ",\n  ".join(opts) + "]")
        if rng.random() < 0.5:
            mover = "White" if board.turn == chess.WHITE else "Black"
            body.append(f"\n\n{rng.choice(['Diagram', 'Position', 'Exercise'])} {i + 1}: {mover} to play")
        body.append("\n\\end{center}\n")
        if book_page:
            body.append(paragraph(rng) + "\n")
        pages.append("".join(body))
        dpi = rng.choice([96, 110, 120, 150, 150, 200])
        jpeg = rng.choice([0, 0, 0, 60, 85])
        pad = rng.choice([2, 8, 16, 40])
        name = f"{i:04d}"
        rows.append({
            "name": name,
            "page": i + 1,
            "dpi": dpi,
            "jpeg": jpeg,
            "pad": pad,
            "placement": board.board_fen(),
            "orientation": "black-bottom" if black_bottom else "white-bottom",
            "source": f"latex chessboard, {'filled' if 'setfontcolors' in opts else 'hatched'}"
                      f"{', labels' if 'label=false' not in opts else ''}"
                      f"{', book page' if book_page else ''}",
        })
    with open(os.path.join(out, "diagrams.tex"), "w") as f:
        f.write("\\documentclass{article}\n\\usepackage[margin=2cm]{geometry}\n"
                "\\usepackage[LSBC4,T1]{fontenc}\n\\usepackage{xskak}\n\\usepackage{chessboard}\n\\pagestyle{empty}\n"
                "\\begin{document}\n")
        f.write("\n\\newpage\n".join(pages))
        f.write("\n\\end{document}\n")
    with open(os.path.join(out, "pages.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
