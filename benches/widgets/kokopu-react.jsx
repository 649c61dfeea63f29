// kokopu-react (the board of the RPB Chessboard plugin on WordPress chess blogs) as a page
// embeds it: one <Chessboard> whose props come from the page (window.BOARD_PROPS, written
// by pages.mjs). Bundled with esbuild by `benches/widgets.sh setup` into
// kokopu-react.bundle.js (its sprites inlined) and kokopu-react.bundle.css.
import React from "react";
import { createRoot } from "react-dom/client";
import { Chessboard } from "kokopu-react";

const box = document.getElementById("board");
const props = window.BOARD_PROPS;
const squareSize = Chessboard.adaptSquareSize(box.clientWidth, box.clientHeight, {
  coordinateVisible: props.coordinateVisible,
  turnVisible: props.turnVisible,
});
createRoot(box).render(<Chessboard {...props} squareSize={squareSize} animated={false} />);
