"""Screenshots of Scid 4.7 (Debian's scid, Tcl/Tk), a chess database program, under Xvfb
with the openbox window manager: random legal games opened from a PGN file and stepped to
their end, drawn from SEED: Scid's piece sets (Alpha, Bauhaus, Cburnett, Eboard, Fantasy2,
Good Companion, Kingdom, Leipzig, Merida, Merida1), its wood, marble and stone textures or
plain colours, coordinates in its four styles or none, the game-info panel on or off,
flipped or not, window sizes from 900x600 to 1600x960 (Scid fits the board to its pane),
the whole screen or the window alone. Scid sources its options file as Tcl, so the options
also schedule the steps a user would click: go to the game's end, turn the board. Writes
OUT/images/*.png and OUT/manifest.csv for `infer eval`.

    python3 scid.py COUNT SEED OUT
"""
import os
import random
import subprocess
import sys
import time

from common import (GAME, SCREEN, desktop, launch, pointer_away, screenshot, settings_file,
                    wait_for_window, write_manifest, write_random_game)

SCID = "/usr/games/scid"
PIECES = ["Alpha", "Bauhaus", "Cburnett", "Eboard", "Fantasy2", "Good Companion", "Kingdom",
          "Leipzig", "Merida", "Merida1"]
TEXTURES = ["BrownMarble", "DarkWood", "F8BrownMarble", "F8GreenMarble", "F8Wood", "LightWood1",
            "LightWood2", "LightWood3", "MapleWalnut", "Stone"]
COLOURS = [("#f3f3f3", "#7389b6"), ("#f0d9b5", "#b58863"), ("#eeeed2", "#769656"),
           ("#ffffff", "#c0c0c0"), ("#e8e8d0", "#a08060")]
READY = "ready"
TITLE = "^Scid - game.pgn"


def tcl(text):
    return "{" + text + "}"


def options(rng, width, height, white):
    """Scid's options.dat (Tcl), and a description of what it asks for."""
    pieces = rng.choice(PIECES)
    coords = rng.choice([0, 0, 1, 2, 3, 4])
    info = rng.random() < 0.5
    lines = ["set startup(tip) 0", "set boardStyle " + tcl(pieces),
             "set boardCoords %d" % coords, "set showGameInfo %d" % info]
    if rng.random() < 0.6:
        squares = rng.choice(TEXTURES)
        lines += ["set boardfile_dark %s-d" % squares, "set boardfile_lite %s-l" % squares]
    else:
        light, dark = rng.choice(COLOURS)
        squares = "colours %s/%s" % (light, dark)
        lines += ["set boardfile_dark emptySquare", "set boardfile_lite emptySquare",
                  "set squareColor_lite " + tcl(light), "set squareColor_dark " + tcl(dark)]
    steps = "wm geometry . %dx%d+0+0; ::move::End" % (width, height)
    if not white:
        steps += "; toggleRotateBoard"
    # A file tells the script the steps are done (and the board redrawn after them).
    steps += "; after 700 " + tcl("close [open %s w]" % READY)
    lines.append("after 1500 " + tcl(steps))
    note = "%s pieces, %s, coordinates %d, %s" % (
        pieces, squares, coords, "game info" if info else "no game info")
    return "\n".join(lines) + "\n", note


def main():
    count, seed, out = int(sys.argv[1]), int(sys.argv[2]), os.path.abspath(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    rows = []
    with desktop(":%d" % (70 + seed % 9), "scid-home-", window_manager=True) as env:
        home = env["HOME"]
        for i in range(count):
            board = write_random_game(rng, rng.randint(1, 120))
            width, height = rng.randint(900, SCREEN[0]), rng.randint(600, SCREEN[1] - 40)
            white = rng.random() < 0.5
            opts, note = options(rng, width, height, white)
            settings_file(os.path.join(home, ".scid4.7", "config", "options.dat"), opts,
                          clear=(os.path.join(home, ".scid4.7"),))
            whole_screen = rng.random() < 0.5
            app, window = launch([SCID, GAME], env, TITLE)
            pointer_away(env)
            end = time.time() + 30
            while not os.path.exists(READY) and time.time() < end:
                time.sleep(0.2)
            if not os.path.exists(READY):
                app.kill()
                sys.exit("scid.py: Scid did not go to the end of game %d" % i)
            os.remove(READY)
            window = wait_for_window(env, TITLE, 5) or window
            name = "images/%04d.png" % i
            screenshot(env, os.path.join(out, name), None if whole_screen else window)
            app.kill()
            # /usr/games/scid is a script that starts tkscid.
            subprocess.run(["pkill", "-f", "tkscid.*" + GAME], env=env)
            app.wait()
            rows.append([name, board.board_fen(), "screenshot",
                         "white-bottom" if white else "black-bottom", "scid 4.7",
                         "%s, window %dx%d%s" % (note, width, height,
                                                 ", whole screen" if whole_screen else "")])
    write_manifest(out, rows)


main()
