"""Screenshots of ChessX 1.4.6 (Debian's chessx, Qt 5), a chess database program, under Xvfb
with the openbox window manager: random legal games opened from a PGN file and stepped to
their end (End key), drawn from SEED: ChessX's seven piece sets (merida, alpha, berlin,
leipzig, fantasy, fritzSWS, spatial) plain, outlined or shadowed, its twelve board textures
or plain colours, frame and coordinates on or off, the last move marked or not, flipped or
not (Ctrl+B), window sizes from 1000x600 to 1600x1000, the whole screen or the window
alone. Writes OUT/images/*.png and OUT/manifest.csv for `infer eval`.

    python3 chessx.py COUNT SEED OUT
"""
import os
import random
import subprocess
import sys
import time

from common import (GAME, SCREEN, desktop, launch, pointer_away, screenshot, settings_file,
                    write_manifest, write_random_game)

CHESSX = "/usr/games/chessx"
PIECES = ["merida", "alpha", "berlin", "leipzig", "fantasy", "fritzSWS", "spatial"]
EFFECTS = {0: "plain", 1: "outline", 2: "shadow"}
BOARDS = ["mahogony", "lapis", "lanta", "wood", "aluminium", "brazilwood", "sand",
          "sandlewood", "slate", "cherry", "maple", "marble"]
COLOURS = [("#d3d3d3", "#a9a9a9"), ("#f0d9b5", "#b58863"), ("#eeeed2", "#769656"),
           ("#dee3e6", "#8ca2ad"), ("#ffffff", "#c0c0c0")]
TITLE = "^game - ChessX"


def settings(rng, width, height):
    """ChessX's ini file (QSettings; its [General] group is spelt [%General] there), and a
    description of what it asks for."""
    pieces, effect = rng.choice(PIECES), rng.choice(list(EFFECTS))
    coords, frame = rng.random() < 0.6, rng.random() < 0.7
    last_move = rng.random() < 0.6
    lines = ["[%General]", "BuiltinDbInstalled=true", "onlineVersionCheck=false",
             "onlineTablebases=false", "", "[Tips]", "showTips=false", "",
             "[Geometry]", "MainWindow=0, 0, %d, %d, 1" % (width, height), "", "[Board]",
             "pieceTheme=" + pieces, "pieceEffect=%d" % effect,
             "showCoordinates=" + ("true" if coords else "false"),
             "showFrame=" + ("true" if frame else "false"),
             "showCurrentMove=" + ("2" if last_move else "0"),
             "guessMove=false", "showThreat=false", "noHints=true"]
    if rng.random() < 0.7:
        squares = rng.choice(BOARDS)
        lines.append("boardTheme=" + squares)
    else:
        light, dark = rng.choice(COLOURS)
        squares = "colours %s/%s" % (light, dark)
        lines += ["boardTheme=", "lightColor=" + light, "darkColor=" + dark]
    note = "%s pieces (%s), %s, %s, %s, %s" % (
        pieces, EFFECTS[effect], squares, "coordinates" if coords else "no coordinates",
        "frame" if frame else "no frame", "last move" if last_move else "no last move")
    return "\n".join(lines) + "\n", note


def main():
    count, seed, out = int(sys.argv[1]), int(sys.argv[2]), os.path.abspath(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    rows = []
    # A window manager: without one, Qt's windows take no keys.
    with desktop(":%d" % (80 + seed % 9), "chessx-home-", window_manager=True) as env:
        home = env["HOME"]
        for i in range(count):
            board = write_random_game(rng, rng.randint(1, 120))
            width, height = rng.randint(1000, SCREEN[0]), rng.randint(600, SCREEN[1] - 40)
            ini, note = settings(rng, width, height)
            settings_file(os.path.join(home, ".config", "chessx", "chessx.ini"), ini,
                          clear=(os.path.join(home, ".config"), os.path.join(home, ".local")))
            white = rng.random() < 0.5
            whole_screen = rng.random() < 0.5
            app, window = launch([CHESSX, GAME], env, TITLE)
            time.sleep(1.5)
            subprocess.run(["xdotool", "windowactivate", "--sync", window], env=env, check=True)
            pointer_away(env)
            subprocess.run(["xdotool", "key", "End"], env=env, check=True)
            if not white:
                subprocess.run(["xdotool", "key", "ctrl+b"], env=env, check=True)
            time.sleep(1.0)
            name = "images/%04d.png" % i
            screenshot(env, os.path.join(out, name), None if whole_screen else window)
            app.kill()
            app.wait()
            rows.append([name, board.board_fen(), "screenshot",
                         "white-bottom" if white else "black-bottom", "chessx 1.4.6",
                         "%s, window %dx%d%s" % (note, width, height,
                                                 ", whole screen" if whole_screen else "")])
    write_manifest(out, rows)


main()
