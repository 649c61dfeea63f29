// react-chessboard (React 19) as an app embeds it: one <Chessboard> whose options come from
// the page (window.BOARD_OPTIONS, written by pages.mjs), pieces from the page's image URLs
// when it gives them (window.BOARD_PIECES), else the widget's own. Bundled with esbuild by
// `benches/widgets.sh setup` into react-chessboard.bundle.js.
import React from "react";
import { createRoot } from "react-dom/client";
import { Chessboard } from "react-chessboard";

const options = { ...window.BOARD_OPTIONS, allowDragging: false, showAnimations: false };
if (window.BOARD_PIECES) {
  options.pieces = Object.fromEntries(
    Object.entries(window.BOARD_PIECES).map(([code, url]) => [
      code,
      () => <img src={url} style={{ width: "100%", height: "100%" }} />,
    ]),
  );
}
createRoot(document.getElementById("board")).render(<Chessboard options={options} />);
