// Writes one HTML page per position, each a chess board drawn by a third-party web widget
// (lichess's chessground, cm-chessboard, ...) as their own code draws it, with a page around
// it, and manifest.csv with the truth, in infer eval's CSV format.
//
//   node pages.mjs LABELS.jsonl OUT_DIR SEED MODULES_DIR PIECES_DIR [WIDGETS] [FLAGS]
//
// FLAGS: `moves`, `phone`, `blog`, or `moves,phone` / `moves,blog`.
//
// LABELS.jsonl: synth's labels (only `placement` is used). MODULES_DIR: node_modules with
// the widgets. PIECES_DIR: lichess-layout piece sets (SET/wK.svg ...) for chessground and
// chessboard.js. WIDGETS: a comma-separated list, default "chessground,cm-chessboard"
// (also "chessboardjs", "react-chessboard", "kokopu-react", "pgn-viewer"). Every choice is drawn from SEED. With `moves`,
// the squares each widget marks as the last move are a move that could have been played
// (drawn from a second stream, so that every other choice stays as without it), and
// manifest.csv gets a `last_move` column (`e2e4`, or `-` when the page shows none).
// With `phone`, each page is a phone app's screen instead (a common phone's viewport and
// pixel ratio, the board across the screen's width, status bar, player bars and clocks,
// a move strip and a toolbar), and windows.txt names each page's viewport and pixel ratio
// for the screenshot. With `blog`, each page is a chess blog's post with the board in its
// text column.
import fs from "node:fs";
import path from "node:path";

const [labelsFile, outDir, seedArg, modulesDir, piecesDir, widgetList, flagArg] = process.argv.slice(2);
const flags = (flagArg || "").split(",").filter((f) => f);
const realMoves = flags.includes("moves");
const phone = flags.includes("phone");
const blog = flags.includes("blog");
if (!piecesDir || flags.some((f) => !["moves", "phone", "blog"].includes(f)) || (phone && blog)) {
  console.error("usage: node pages.mjs LABELS.jsonl OUT_DIR SEED MODULES_DIR PIECES_DIR [WIDGETS] [moves|phone|blog|moves,phone|moves,blog]");
  process.exit(2);
}
// mulberry32: small, seeded, the same on every machine.
function mulberry32(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(Number(seedArg));
const pick = (list) => list[Math.floor(random() * list.length)];
// The second stream, for the played moves only.
const moveRandom = mulberry32((Number(seedArg) >>> 0) ^ 0x5bd1e995);
const chance = (p) => random() < p;
const between = (lo, hi) => Math.round(lo + random() * (hi - lo));

const FILES = "abcdefgh";
const squareName = (file, rank) => FILES[file] + String(rank + 1);
// Squares holding a piece, and empty ones, of a placement, as [name, fen char].
function squares(placement) {
  const out = [];
  placement.split("/").forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) {
        for (let k = 0; k < Number(ch); k++) out.push([squareName(f++, 7 - r), null]);
      } else out.push([squareName(f++, 7 - r), ch]);
    }
  });
  return out;
}

// Whether the man `piece` (a FEN letter) now on `to` could have come from the empty `from`
// in one move, the men standing as `board` (square name -> letter) says: the rule of
// fenscan's last_move::could_have_moved.
function couldHaveMoved(board, piece, from, to) {
  if (from === to || board[from]) return false;
  const [ff, fr] = [FILES.indexOf(from[0]), Number(from[1]) - 1];
  const [tf, tr] = [FILES.indexOf(to[0]), Number(to[1]) - 1];
  const [df, dr] = [tf - ff, tr - fr];
  const white = piece === piece.toUpperCase();
  const rel = (rank) => (white ? rank : 7 - rank);
  const clear = () => {
    const steps = Math.max(Math.abs(df), Math.abs(dr));
    for (let k = 1; k < steps; k++)
      if (board[squareName(ff + k * Math.sign(df), fr + k * Math.sign(dr))]) return false;
    return true;
  };
  const line = df === 0 || dr === 0;
  const diagonal = Math.abs(df) === Math.abs(dr);
  let moved;
  switch (piece.toUpperCase()) {
    case "N": moved = (Math.abs(df) === 1 && Math.abs(dr) === 2) || (Math.abs(df) === 2 && Math.abs(dr) === 1); break;
    case "K": moved = (Math.abs(df) <= 1 && Math.abs(dr) <= 1) || (from === (white ? "e1" : "e8") && (to === (white ? "g1" : "g8") || to === (white ? "c1" : "c8"))); break;
    case "R": moved = line && clear(); break;
    case "B": moved = diagonal && clear(); break;
    case "Q": moved = (line || diagonal) && clear(); break;
    default: {
      const ahead = white ? dr : -dr;
      moved = rel(fr) !== 0 && rel(tr) !== 7 && ((Math.abs(df) <= 1 && ahead === 1) || (df === 0 && ahead === 2 && rel(fr) === 1 && clear()));
    }
  }
  const promoted = "QRBN".includes(piece.toUpperCase()) && rel(fr) === 6 && rel(tr) === 7 && Math.abs(df) <= 1;
  return moved || promoted;
}

// A move that could have just been played: a man of a random side and an empty square it
// could have come from (the other side when this one has none); null when none fits.
function playedMove(placement) {
  const all = squares(placement);
  const board = Object.fromEntries(all.filter(([, p]) => p));
  const firstWhite = moveRandom() < 0.5;
  for (const white of [firstWhite, !firstWhite]) {
    const moves = [];
    for (const [to, p] of all)
      if (p && (p === p.toUpperCase()) === white)
        for (const [from] of all) if (couldHaveMoved(board, p, from, to)) moves.push([from, to]);
    if (moves.length) return moves[Math.floor(moveRandom() * moves.length)];
  }
  return null;
}
// The move the page being written shows (`moves` only).
let shownMove = null;
// With `moves`, a played move instead of the two squares a widget would mark at random.
function lastMoveSquares(placement, randomPair) {
  if (!realMoves) return randomPair;
  shownMove = playedMove(placement);
  return shownMove ?? randomPair;
}

const moduleUrl = (p) => "file://" + path.resolve(modulesDir, p);
const pieceSets = fs
  .readdirSync(piecesDir)
  .filter((d) => fs.existsSync(path.join(piecesDir, d, "wK.svg")))
  .sort();
const ROLE = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

// Board colours lichess offers (light, dark), drawn as chessground draws its own: a
// background under the squares.
const CG_THEMES = {
  brown: null,
  blue: ["#dee3e6", "#8ca2ad"],
  green: ["#ffffdd", "#86a666"],
  ic: ["#ececec", "#c1c18e"],
  purple: ["#9f90b0", "#7d4a8d"],
  grey: ["#b8b8b8", "#7d7d7d"],
};
function checker([light, dark]) {
  let rects = "";
  for (let r = 0; r < 8; r++)
    for (let f = 0; f < 8; f++)
      if ((r + f) % 2 === 1) rects += `<rect x='${f}' y='${r}' width='1' height='1'/>`;
  const svg = `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8' shape-rendering='crispEdges'><rect width='8' height='8' fill='${light}'/><g fill='${dark}'>${rects}</g></svg>`;
  return `url("data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}")`;
}

function page({ head, body, script, module, dark, boardPx, left, top }) {
  const bg = dark ? "#161512" : pick(["#f4f4f4", "#ffffff", "#e9e6e1"]);
  const fg = dark ? "#bababa" : "#333";
  const moves = Array.from({ length: between(4, 20) }, (_, k) => `<div>${k + 1}. e4 e5</div>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8">${head}
<style>body{margin:0;background:${bg};color:${fg};font:14px sans-serif}
#top{height:48px;background:${dark ? "#262421" : "#ddd"};padding:14px 20px;box-sizing:border-box}
#board{position:absolute;left:${left}px;top:${top}px;width:${boardPx}px;height:${boardPx}px}
#side{position:absolute;left:${left + boardPx + 30}px;top:${top}px;width:260px}</style></head>
<body><div id="top">analysis board &nbsp; puzzles &nbsp; learn &nbsp; watch</div>${body}
<div id="side"><b>Opening explorer</b>${moves}</div>
<script${module ? ' type="module"' : ""}>${script}</script></body></html>`;
}

// Phones people play on: CSS viewport and device pixel ratio (screenshots of 1080-1290 px
// across).
const PHONES = [[360, 800, 3], [393, 873, 2.75], [412, 915, 2.625], [390, 844, 3], [430, 932, 3], [384, 854, 2.8125]];
const PLAYERS = ["DrNykterstein", "pawnstorm77", "Anna_K", "chesslover2009", "GM_Hikaru_fan", "blitzwitz", "Opponent", "You"];
// A phone app's screen: a status bar, the app's bar, maybe a move strip, a player bar with
// a clock above and below the board, which spans the width (or nearly), and a toolbar.
function phonePage({ head, body, script, module, dark, width, height }) {
  const bg = dark ? pick(["#161512", "#302e2b", "#1e1e1e"]) : pick(["#f4f4f4", "#ffffff", "#e9e6e1"]);
  const fg = dark ? "#bababa" : "#333";
  const barBg = dark ? pick(["#262421", "#21201d", "#000"]) : pick(["#ddd", "#fff", "#3f51b5"]);
  const margin = chance(0.7) ? 0 : between(4, 12);
  const boardPx = width - 2 * margin;
  const status = between(24, 32);
  const app = between(48, 60);
  const strip = chance(0.6) ? between(26, 36) : 0;
  const bar = between(40, 60);
  const top = status + app + strip + bar + between(0, 12);
  const clock = () => `${between(0, 9)}:${String(between(0, 59)).padStart(2, "0")}`;
  const player = (y) =>
    `<div class="pl" style="top:${y}px"><span class="av"></span>${pick(PLAYERS)} <small>(${between(900, 2700)})</small><span class="ck">${clock()}</span></div>`;
  const moves = Array.from({ length: between(3, 30) }, (_, k) => `${k + 1}. e4 e5`).join(" &nbsp; ");
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">${head}
<style>body{margin:0;background:${bg};color:${fg};font:15px sans-serif;overflow:hidden}
#status{height:${status}px;background:${dark ? "#000" : barBg};color:${dark ? "#fff" : fg};font-size:13px;padding:4px 16px;box-sizing:border-box}
#status span{float:right}
#app{height:${app}px;background:${barBg};padding:${Math.round(app / 2 - 10)}px 16px;box-sizing:border-box;font-size:18px}
#strip{height:${strip}px;white-space:nowrap;overflow:hidden;padding:6px 8px;box-sizing:border-box;font-size:13px;display:${strip ? "block" : "none"}}
.pl{position:absolute;left:12px;right:12px;height:${bar}px;line-height:${bar}px}
.av{display:inline-block;width:28px;height:28px;border-radius:50%;background:#888;vertical-align:middle;margin-right:8px}
.ck{position:absolute;right:0;top:${Math.round(bar / 2 - 16)}px;height:32px;line-height:32px;padding:0 10px;background:${dark ? "#3a3835" : "#ccc"};font:bold 20px monospace}
#board{position:absolute;left:${margin}px;top:${top}px;width:${boardPx}px;height:${boardPx}px}
#tools{position:absolute;left:0;right:0;bottom:0;height:56px;background:${barBg};font-size:24px;text-align:center;line-height:56px;word-spacing:40px}</style></head>
<body><div id="status">9:41<span>&#9650; &#9646; ${between(5, 100)}%</span></div><div id="app">&#9776; &nbsp; ${pick(["Analysis board", "Online game", "Puzzle", "Study", "Correspondence"])}</div>
<div id="strip">${moves}</div>${player(top - bar)}${body}${player(top + boardPx)}
<div id="tools">&#8634; &#9664; &#9654; &#8942;</div>
<script${module ? ' type="module"' : ""}>${script}</script></body></html>`;
}

// A chess blog's post (WordPress with a board plugin): the site's header and menu, the
// post's title and paragraphs of annotation, the board in the column (centred, or floated
// left with the text beside it) with a caption under it, and a sidebar; a desktop window.
const WORDS = ("the white black knight bishop rook queen king pawn attack defence move after before " +
  "position endgame opening threat square file rank diagonal sacrifice exchange advantage plan " +
  "centre castle check mate draw win loses gains pressure weak strong develop").split(" ");
function sentence() {
  const words = Array.from({ length: between(6, 16) }, () => pick(WORDS));
  if (chance(0.5)) words.splice(between(1, words.length - 1), 0, `${between(5, 40)}.${pick(["Nf3", "Bb5", "Qd2", "Rfe1", "exd5", "Kg2", "..Nc6", "..Qxd4"])}`);
  return words.join(" ").replace(/^./, (c) => c.toUpperCase()) + pick([".", ".", "!", "?"]);
}
const paragraph = () => `<p>${Array.from({ length: between(1, 4) }, sentence).join(" ")}</p>`;
function blogPage({ head, body, script, module, boardPx }) {
  const bg = pick(["#ffffff", "#fdfdf8", "#f7f7f7"]);
  const accent = pick(["#23282d", "#0073aa", "#7a1f1f", "#2e4a2e"]);
  const float = chance(0.4);
  const before = Array.from({ length: between(0, 2) }, paragraph).join("");
  const after = Array.from({ length: between(1, 4) }, paragraph).join("");
  const caption = pick(["White to play and win", "Black to move", "Position after 23...Rxe4", "Diagram 3", "What should White play here?"]);
  return `<!doctype html><html><head><meta charset="utf-8">${head}
<style>body{margin:0;background:${bg};color:#333;font:${between(14, 17)}px/1.6 ${pick(["Georgia, serif", "sans-serif", "'DejaVu Serif', serif"])}}
#site{background:${accent};color:#fff;padding:18px 40px;font-size:26px}
#site small{display:block;font-size:13px;opacity:.8}
#nav{padding:8px 40px;border-bottom:1px solid #ddd;font-size:14px;word-spacing:18px}
#post{position:absolute;left:40px;top:130px;width:760px}
#post h1{font-size:24px;margin:0 0 6px}
#figure{${float ? "float:left;margin:4px 20px 8px 0" : "margin:10px auto"};width:${boardPx}px}
#board{position:relative;width:${boardPx}px;height:${boardPx}px}
#figure p{text-align:center;font-style:italic;font-size:13px;margin:4px 0}
#sidebar{position:absolute;left:850px;top:130px;width:300px;font-size:14px}</style></head>
<body><div id="site">${pick(["The Chess Corner", "Endgame Notes", "Club Blog", "Tactics Daily"])}<small>notes on chess</small></div>
<div id="nav">Home Games Openings Endgames Puzzles About</div>
<div id="post"><h1>${pick(["Annotated game", "Puzzle of the week", "A rook endgame", "Club championship, round 5"])}</h1>${before}
<div id="figure">${body}<p>${caption}</p></div>${after}</div>
<div id="sidebar"><b>Recent posts</b><p>${sentence()}</p><p>${sentence()}</p><b>Archives</b><p>November 2026<br>October 2026</p></div>
<script${module ? ' type="module"' : ""}>${script}</script></body></html>`;
}

function chessground(placement, orientation) {
  const set = pick(pieceSets);
  const theme = pick(Object.keys(CG_THEMES));
  const all = squares(placement);
  const pieces = Object.entries(ROLE)
    .flatMap(([letter, role]) =>
      ["white", "black"].map((colour) => {
        const file = path.resolve(piecesDir, set, (colour === "white" ? "w" : "b") + letter + ".svg");
        return `.cg-wrap piece.${role}.${colour}{background-image:url("file://${file}")}`;
      }),
    )
    .join("\n");
  const boardCss = CG_THEMES[theme] ? `cg-board{background-image:${checker(CG_THEMES[theme])} !important}` : "";
  const shapes = [];
  if (chance(0.3)) shapes.push({ orig: pick(all)[0], dest: pick(all)[0], brush: pick(["green", "red", "blue", "yellow"]) });
  if (chance(0.15)) shapes.push({ orig: pick(all)[0], brush: pick(["green", "red"]) });
  const occupied = all.filter(([, p]) => p);
  const config = {
    fen: placement,
    orientation,
    coordinates: chance(0.8),
    lastMove: chance(0.7) ? lastMoveSquares(placement, [pick(all)[0], pick(occupied)[0]]) : undefined,
    check: chance(0.1) ? pick(occupied.filter(([, p]) => p === "K" || p === "k"))?.[0] : undefined,
    drawable: { autoShapes: shapes.filter((s) => s.orig !== s.dest) },
  };
  const head = ["chessground.base.css", "chessground.brown.css"]
    .map((f) => `<link rel="stylesheet" href="${moduleUrl("chessground/assets/" + f)}">`)
    .join("") + `<style>${pieces}\n${boardCss}</style>`;
  const script = `import { Chessground } from "${moduleUrl("chessground/dist/chessground.js")}";
Chessground(document.getElementById("board"), ${JSON.stringify(config)});`;
  return { head, script, source: `chessground ${set}, ${theme}` };
}

function cmChessboard(placement, orientation) {
  const theme = pick(["default", "default-contrast", "green", "blue", "chess-club", "chessboard-js", "black-and-white"]);
  const pieces = pick(["standard.svg", "staunty.svg"]);
  const border = pick(["none", "thin", "frame"]);
  const all = squares(placement);
  const markers = [];
  if (chance(0.6)) {
    const [a, b] = lastMoveSquares(placement, [pick(all)[0], pick(all)[0]]);
    markers.push(["square", a], ["square", b]);
  }
  if (chance(0.2)) markers.push([pick(["frame", "circle", "dot", "circleDanger"]), pick(all)[0]]);
  const arrows = chance(0.25) ? [[pick(["success", "warning", "info", "danger"]), pick(all)[0], pick(all)[0]]] : [];
  const config = {
    position: placement,
    orientation: orientation === "white" ? "w" : "b",
    assetsUrl: moduleUrl("cm-chessboard/assets/") + "/",
    style: { cssClass: theme, showCoordinates: chance(0.8), borderType: border, pieces: { file: "pieces/" + pieces } },
  };
  const head = ["chessboard.css", "extensions/markers/markers.css", "extensions/arrows/arrows.css"]
    .map((f) => `<link rel="stylesheet" href="${moduleUrl("cm-chessboard/assets/" + f)}">`)
    .join("");
  const src = (p) => moduleUrl("cm-chessboard/src/" + p);
  const script = `import { Chessboard } from "${src("Chessboard.js")}";
import { Markers, MARKER_TYPE } from "${src("extensions/markers/Markers.js")}";
import { Arrows, ARROW_TYPE } from "${src("extensions/arrows/Arrows.js")}";
const config = ${JSON.stringify(config)};
config.extensions = [{ class: Markers }, { class: Arrows }];
const board = new Chessboard(document.getElementById("board"), config);
for (const [type, square] of ${JSON.stringify(markers)}) board.addMarker(MARKER_TYPE[type], square);
for (const [type, from, to] of ${JSON.stringify(arrows)}) if (from !== to) board.addArrow(ARROW_TYPE[type], from, to);`;
  return { head, script, source: `cm-chessboard ${pieces.replace(".svg", "")}, ${theme}, border ${border}` };
}

// chessboard.js (jQuery): its own board colours or two others, pieces of any lichess set
// through its `pieceTheme`, its notation inside the edge squares, and the last move
// highlighted as its documentation's example does (an inset shadow on the two squares).
function chessboardjs(placement, orientation) {
  const set = pick(pieceSets);
  const colours = pick([null, ["#dee3e6", "#8ca2ad"], ["#eeeed2", "#769656"]]);
  const all = squares(placement);
  let css = "";
  if (colours) css += `.white-1e1d7{background-color:${colours[0]}}.black-3c85d{background-color:${colours[1]}}`;
  if (chance(0.5)) {
    const shadow = pick(["inset 0 0 3px 3px yellow", "inset 0 0 3px 3px blue"]);
    css += lastMoveSquares(placement, [pick(all)[0], pick(all)[0]]).map((sq) => `.square-${sq}{box-shadow:${shadow}}`).join("");
  }
  const config = {
    position: placement,
    orientation,
    showNotation: chance(0.8),
    pieceTheme: "file://" + path.resolve(piecesDir, set) + "/{piece}.svg",
  };
  const head =
    `<link rel="stylesheet" href="${moduleUrl("@chrisoakman/chessboardjs/dist/chessboard-1.0.0.css")}">` +
    `<script src="${moduleUrl("jquery/dist/jquery.min.js")}"></script>` +
    `<script src="${moduleUrl("@chrisoakman/chessboardjs/dist/chessboard-1.0.0.js")}"></script>` +
    `<style>${css}</style>`;
  const script = `Chessboard("board", ${JSON.stringify(config)});`;
  return { head, script, source: `chessboardjs ${set}, ${colours ? colours[1] : "own colours"}`, module: false };
}

// react-chessboard (React 19; the most used chessboard on npm): its own look (lichess's
// brown, 13-px notation in the corners of the edge squares, its own pieces) or an app's
// (chess.com's or lichess's blue board, pieces of a lichess set, a rounded, shadowed frame),
// the last move in translucent yellow, a selected piece's moves as the dots and rings of
// its documentation's examples, arrows.
function reactChessboard(placement, orientation) {
  const own = chance(0.4);
  const set = own ? null : pick(pieceSets);
  const colours = own ? null : pick([["#eeeed2", "#769656"], ["#dee3e6", "#8ca2ad"], ["#f0d9b5", "#b58863"]]);
  const all = squares(placement);
  const squareStyles = {};
  if (chance(0.6))
    for (const sq of lastMoveSquares(placement, [pick(all)[0], pick(all)[0]])) squareStyles[sq] = { background: "rgba(255, 255, 0, 0.4)" };
  if (chance(0.3)) {
    for (let k = between(1, 6); k > 0; k--) {
      const [sq, piece] = pick(all);
      squareStyles[sq] = {
        background: piece
          ? "radial-gradient(circle, rgba(0,0,0,.1) 85%, transparent 85%)"
          : "radial-gradient(circle, rgba(0,0,0,.1) 25%, transparent 25%)",
        borderRadius: "50%",
      };
    }
  }
  const arrows = [];
  if (chance(0.3)) {
    const [from, to] = [pick(all)[0], pick(all)[0]];
    if (from !== to) arrows.push({ startSquare: from, endSquare: to, color: pick(["rgb(0, 128, 0)", "rgb(255, 170, 0)", "rgb(255, 0, 0)"]) });
  }
  const options = {
    position: placement,
    boardOrientation: orientation,
    showNotation: chance(0.8),
    squareStyles,
    arrows,
  };
  if (colours) {
    options.lightSquareStyle = { backgroundColor: colours[0] };
    options.darkSquareStyle = { backgroundColor: colours[1] };
    options.lightSquareNotationStyle = { color: colours[1] };
    options.darkSquareNotationStyle = { color: colours[0] };
  }
  if (chance(0.3)) options.boardStyle = { borderRadius: "5px", boxShadow: "0 2px 10px rgba(0, 0, 0, 0.5)" };
  let pieces = null;
  if (set) {
    pieces = {};
    for (const c of ["w", "b"]) for (const r of "KQRBNP") pieces[c + r] = "file://" + path.resolve(piecesDir, set, c + r + ".svg");
  }
  const bundle = "file://" + path.resolve(modulesDir, "..", "react-chessboard.bundle.js");
  const head =
    `<script>window.BOARD_OPTIONS = ${JSON.stringify(options)}; window.BOARD_PIECES = ${JSON.stringify(pieces)};</script>` +
    `<script defer src="${bundle}"></script>`;
  const script = "";
  return { head, script, source: `react-chessboard ${set ?? "own pieces"}, ${colours ? colours[1] : "own colours"}`, module: false };
}

// kokopu-react (the RPB Chessboard plugin's board on WordPress chess blogs): its six piece
// sets (two, eyes and skulls, never trained on) and eleven colour sets, its coordinates and
// turn marker beside the board, square markers (the last move in yellow, others), letters
// and symbols on empty squares as annotators place them, and arrows. The board takes the
// largest square size the page's box allows (the widget's own adaptSquareSize).
function kokopuReact(placement, orientation) {
  const pieceset = pick(["cburnett", "celtic", "eyes", "fantasy", "skulls", "spatial"]);
  const colorset = pick(["original", "gray", "scid", "wikipedia", "xboard", "coral", "dusk", "emerald", "marine", "sandcastle", "wheat"]);
  const all = squares(placement);
  const empty = all.filter(([, p]) => !p);
  const colour = () => pick(["B", "G", "R", "Y"]);
  const squareMarkers = [];
  if (chance(0.5)) for (const sq of lastMoveSquares(placement, [pick(all)[0], pick(all)[0]])) squareMarkers.push("Y" + sq);
  if (chance(0.2)) for (let k = between(1, 3); k > 0; k--) squareMarkers.push(colour() + pick(all)[0]);
  const textMarkers = [];
  if (chance(0.25) && empty.length)
    for (let k = between(1, 4); k > 0; k--) {
      const symbol = pick(["A", "B", "C", "a", "b", "x", "1", "2", "(plus)", "(times)", "(dot)", "(circle)"]);
      textMarkers.push(colour() + symbol + pick(empty)[0]);
    }
  const arrowMarkers = [];
  if (chance(0.3))
    for (let k = between(1, 2); k > 0; k--) {
      const [from, to] = [pick(all)[0], pick(all)[0]];
      if (from !== to) arrowMarkers.push(colour() + from + to);
    }
  const props = {
    position: placement + " w - - 0 1",
    flipped: orientation === "black",
    pieceset,
    colorset,
    coordinateVisible: chance(0.75),
    turnVisible: chance(0.5),
    squareMarkers: squareMarkers.join(","),
    textMarkers: textMarkers.join(","),
    arrowMarkers: arrowMarkers.join(","),
  };
  const bundle = (ext) => "file://" + path.resolve(modulesDir, "..", "kokopu-react.bundle." + ext);
  const head =
    `<link rel="stylesheet" href="${bundle("css")}">` +
    `<script>window.BOARD_PROPS = ${JSON.stringify(props)};</script>` +
    `<script defer src="${bundle("js")}"></script>`;
  return { head, script: "", source: `kokopu-react ${pieceset}, ${colorset}`, module: false };
}

// PgnViewerJS (@mliebelt/pgn-viewer, a game viewer on chess blogs and club sites, drawn by
// chessground): its nine piece styles (beyer never trained on; case and condal named, and
// seemingly drawn, as two diagram fonts trained on) and nine themes, book diagrams among
// them (informator's and sportverlag's hatched dark squares, zeit, beyer, falken),
// coordinates in capitals beside the board or inside its edge squares.
function pgnViewer(placement, orientation) {
  const pieceStyle = pick(["wikipedia", "alpha", "uscf", "case", "condal", "maya", "merida", "leipzig", "beyer"]);
  // PGNV_THEMES=a,b (environment) draws from those themes only.
  const themes = process.env.PGNV_THEMES?.split(",") ?? ["default", "zeit", "green", "blue", "falken", "beyer", "sportverlag", "informator", "brown"];
  const theme = pick(themes);
  const config = {
    position: placement + " w - - 0 1",
    pieceStyle,
    theme,
    orientation,
    showCoords: chance(0.75),
    coordsInner: chance(0.5),
  };
  const head = `<script src="${moduleUrl("@mliebelt/pgn-viewer/lib/dist.js")}"></script>`;
  // Its board is 320 px unless told: the page's box says (outer coordinates lie beyond it).
  const script = `PGNV.pgnBoard("board", Object.assign(${JSON.stringify(config)}, { boardSize: document.getElementById("board").clientWidth + "px" }));`;
  const coords = config.showCoords ? (config.coordsInner ? "inner coordinates" : "outer coordinates") : "no coordinates";
  return { head, script, source: `pgn-viewer ${pieceStyle}, ${theme}, ${coords}`, module: false };
}

const WIDGETS = {
  chessground,
  "cm-chessboard": cmChessboard,
  chessboardjs,
  "react-chessboard": reactChessboard,
  "kokopu-react": kokopuReact,
  "pgn-viewer": pgnViewer,
};
const widgets = (widgetList || "chessground,cm-chessboard").split(",").map((name) => {
  if (!WIDGETS[name]) {
    console.error(`pages.mjs: no widget ${name} (${Object.keys(WIDGETS).join(", ")})`);
    process.exit(2);
  }
  return WIDGETS[name];
});

const placements = fs
  .readFileSync(labelsFile, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l).placement);
fs.mkdirSync(path.join(outDir, "pages"), { recursive: true });
const rows = ["file,placement,kind,orientation,source_repo,notes" + (realMoves ? ",last_move" : "")];
const windows = [];
placements.forEach((placement, k) => {
  shownMove = null;
  const orientation = chance(0.25) ? "black" : "white";
  // One draw either way: with the default two widgets, the same stream as chance(0.5).
  const widget = widgets[Math.floor(random() * widgets.length)](placement, orientation);
  // The page's parts; `dark` is drawn where each layout always drew it.
  const parts = () => ({
    head: widget.head,
    body: '<div id="board"></div>',
    script: widget.script,
    module: widget.module !== false,
    dark: chance(0.6),
  });
  let html;
  if (phone) {
    const [width, height, ratio] = pick(PHONES);
    html = phonePage({ ...parts(), width, height });
    windows.push(`${String(k).padStart(4, "0")} ${width} ${height} ${ratio}`);
  } else if (blog) {
    html = blogPage({ ...parts(), boardPx: between(220, 420) });
  } else {
    const boardPx = between(200, 560);
    html = page({
      ...parts(),
      boardPx,
      left: between(20, 1280 - boardPx - 300),
      top: between(60, 800 - boardPx - 10),
    });
  }
  const name = String(k).padStart(4, "0");
  fs.writeFileSync(path.join(outDir, "pages", name + ".html"), html);
  const moveCell = realMoves ? "," + (shownMove ? shownMove.join("") : "-") : "";
  rows.push(`images/${name}.png,${placement},screenshot,${orientation}-bottom,"${widget.source}",${moveCell}`);
});
fs.writeFileSync(path.join(outDir, "manifest.csv"), rows.join("\n") + "\n");
if (phone) fs.writeFileSync(path.join(outDir, "windows.txt"), windows.join("\n") + "\n");
