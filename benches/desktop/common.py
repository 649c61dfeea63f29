"""What the desktop-program scripts (xboard.py, chessx.py, scid.py) share: random legal
games written as PGN, a virtual screen with an optional window manager, finding a window,
screenshots, and the manifest `infer eval` reads."""
import contextlib
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

import chess
import chess.pgn

SCREEN = (1600, 1000)
GAME = "game.pgn"


def write_random_game(rng, plies, path=GAME):
    """A random legal game of up to `plies` plies written to `path`; its last position."""
    board = chess.Board()
    game = chess.pgn.Game()
    node = game
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        board.push(move)
        node = node.add_variation(move)
    with open(path, "w") as f:
        f.write(str(game) + "\n")
    return board


@contextlib.contextmanager
def desktop(display, prefix, window_manager):
    """Xvfb on `display` (and openbox when `window_manager`), with a fresh home folder that
    is also the working folder (the programs title their windows with the file name they
    were given). Yields the environment to run programs in."""
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "%dx%dx24" % SCREEN, "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = tempfile.mkdtemp(prefix=prefix)
    os.chdir(home)
    env = dict(os.environ, DISPLAY=display, HOME=home)
    wm = None
    try:
        time.sleep(1.0)
        if window_manager:
            wm = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        yield env
    finally:
        if wm is not None:
            wm.kill()
        xvfb.kill()
        os.chdir("/")
        shutil.rmtree(home, ignore_errors=True)


def pointer_away(env):
    """The pointer to the screen's corner, off any board (no hover marks)."""
    subprocess.run(["xdotool", "mousemove", str(SCREEN[0] - 1), str(SCREEN[1] - 1)], env=env, check=True)


def wait_for_window(env, title, seconds):
    """The id of a visible window whose name matches the regex `title`, or None."""
    end = time.time() + seconds
    while time.time() < end:
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", title],
                               env=env, capture_output=True, text=True).stdout.split()
        if found:
            return found[0]
        time.sleep(0.2)
    return None


def settings_file(path, text, clear=()):
    """`text` in `path`, in a fresh folder (it and the folders in `clear` removed first):
    every board starts from the program's defaults and these settings only."""
    for folder in (os.path.dirname(path),) + tuple(clear):
        shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)


def launch(args, env, title, seconds=20):
    """Starts a program and waits for its window (regex `title`): (process, window id).
    Ends the script when no window comes."""
    app = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    window = wait_for_window(env, title, seconds)
    if window is None:
        app.kill()
        sys.exit("%s: no window titled %s" % (os.path.basename(args[0]), title))
    return app, window


def screenshot(env, path, window=None, on_desktop=None):
    """The whole screen, or `window` (an id or ["-name", NAME]) with its frame; with
    `on_desktop` = (colour, x, y), the window pasted on a desktop of that colour."""
    if window is None:
        target = ["-root"]
    elif isinstance(window, list):
        target = window
    else:
        target = ["-id", window, "-frame"]
    xwd = subprocess.run(["xwd", "-silent", "-display", env["DISPLAY"]] + target,
                         capture_output=True, check=True).stdout
    if on_desktop is None:
        subprocess.run(["convert", "xwd:-", path], input=xwd, check=True)
    else:
        colour, x, y = on_desktop
        subprocess.run(["convert", "-size", "%dx%d" % SCREEN, "xc:" + colour, "xwd:-",
                        "-geometry", "+%d+%d" % (x, y), "-composite", path], input=xwd, check=True)


def write_manifest(out, rows):
    """OUT/manifest.csv: file, placement, kind, orientation, source, notes per picture."""
    with open(os.path.join(out, "manifest.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "placement", "kind", "orientation", "source_repo", "notes"])
        w.writerows(rows)
