"""Screenshots of XBoard 4.9 (Debian's xboard, GTK) showing random legal games, under Xvfb:
the desktop program many engine users still look at. Each board is a game loaded from a
PGN file and played to its end (so the last move is marked, with XBoard's arrow or its
square frames), drawn from SEED: piece size 25-80 px, grid line width 0-2, wood textures,
XBoard's hatched texture or one of six square colour pairs, XBoard's own pieces or a lichess
set (six of them held out of training), white or black at the bottom, coordinates on or
off, the window alone or anywhere on a desktop of some colour. Writes OUT/images/*.png and
OUT/manifest.csv for `infer eval`.

    python3 xboard.py COUNT SEED OUT LICHESS_PIECES
"""
import os
import random
import subprocess
import sys
import time

from common import GAME, desktop, pointer_away, screenshot, write_manifest, write_random_game

XBOARD = "/usr/games/xboard"
THEMES = "/usr/share/games/xboard/themes/textures"
COLOURS = [
    ("#C8C365", "#77A26D"),  # XBoard's compiled-in colours
    ("#f0d9b5", "#b58863"),  # lichess brown
    ("#eeeed2", "#769656"),  # green
    ("#dee3e6", "#8ca2ad"),  # blue
    ("#ffffff", "#b0b0b0"),  # grey
    ("#e8e8e8", "#a0a0d0"),  # lavender
]
LICHESS = ["cburnett", "merida", "alpha", "staunty", "california", "maestro",
           "cardinal", "chess7", "dubrovny", "governor", "pixel", "tatiana"]
NAMES = {"K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight", "P": "Pawn"}
DESKTOPS = ["#2e3440", "#3465a4", "#808080", "#d3d7cf", "#204a87", "#000000"]


def piece_dir(root, lichess, name):
    """XBoard wants WhiteKing.svg ... BlackPawn.svg; lichess sets name them wK.svg ... bP.svg."""
    out = os.path.join(root, "pieces", name)
    if not os.path.isdir(out):
        os.makedirs(out)
        for colour, word in (("w", "White"), ("b", "Black")):
            for letter, piece in NAMES.items():
                os.symlink(os.path.abspath(os.path.join(lichess, name, colour + letter + ".svg")),
                           os.path.join(out, word + piece + ".svg"))
    return out


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    out, lichess = os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4])
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    rows = []
    # No window manager: XBoard needs none, and the window is taken and placed by hand.
    with desktop(":%d" % (90 + seed % 9), "xboard-home-", window_manager=False) as env:
        pointer_away(env)
        for i in range(count):
            board = write_random_game(rng, rng.randint(1, 120))
            white = rng.random() < 0.5
            coords = rng.random() < 0.6
            size = rng.choice([25, 33, 40, 49, 58, 64, 72, 80])
            args = [XBOARD, "-ncp", "-lgf", GAME, "-td", "0", "-size", str(size),
                    "-autoDisplayTags", "false", "-autoDisplayComment", "false",
                    "-saveSettingsOnExit", "false",
                    "-messageSuppress", "Right-clicking menu item or dialog text pops up help on it",
                    "-flipView", "false" if white else "true",
                    "-showCoords", "true" if coords else "false",
                    "-overrideLineGap", str(rng.choice([0, 1, 1, 2]))]
            marks = rng.choice(["arrow", "squares", "none"])
            args += ["-highlightLastMove", "false" if marks == "none" else "true",
                     "-highlightMoveWithArrow", "true" if marks == "arrow" else "false"]
            look = rng.random()
            if look < 0.3:
                squares = "wood"
                args += ["-useBoardTexture", "true",
                         "-liteBackTextureFile", os.path.join(THEMES, "wood_l.png"),
                         "-darkBackTextureFile", os.path.join(THEMES, "wood_d.png")]
            elif look < 0.4:
                squares = "hatch"
                args += ["-useBoardTexture", "true", "-liteBackTextureFile", "",
                         "-darkBackTextureFile", os.path.join(THEMES, "hatch.png"),
                         "-lightSquareColor", "#ffffff"]
            else:
                light, dark = rng.choice(COLOURS)
                squares = "colours %s/%s" % (light, dark)
                args += ["-useBoardTexture", "false", "-lightSquareColor", light, "-darkSquareColor", dark]
            pieces = "xboard"
            if rng.random() < 0.4:
                pieces = rng.choice(LICHESS)
                args += ["-pieceImageDirectory", piece_dir(os.path.dirname(out), lichess, pieces)]
            # The window alone (as Alt+PrintScreen takes it), or on a desktop of some colour.
            on_desktop = None
            if rng.random() < 0.6:
                on_desktop = (rng.choice(DESKTOPS), rng.randint(0, 700), rng.randint(0, 250))
            app = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(2.0)
            name = "images/%04d.png" % i
            # XBoard titles its main window with the game file's name.
            screenshot(env, os.path.join(out, name), ["-name", GAME], on_desktop)
            app.kill()
            app.wait()
            rows.append([name, board.board_fen(), "screenshot",
                         "white-bottom" if white else "black-bottom", "xboard 4.9.1",
                         "%s pieces, %d px, %s, last move %s, %s" % (
                             pieces, size, squares, marks,
                             "coordinates" if coords else "no coordinates")])
    write_manifest(out, rows)


main()
