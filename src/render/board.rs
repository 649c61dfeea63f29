//! Drawing one flat board: squares, overlays, coordinates, pieces, frame.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{PathBuilder, Pixmap, PixmapPaint, Rect, Stroke, Transform};
use serde::{Deserialize, Serialize};

use super::board_men::draw_pieces;
use super::config::OverlayConfig;
use super::labels::{inside_coordinates, outside_coordinates};
use super::marks;
use super::overlay::Grid;
use super::pieces::PieceSet;
use super::shading::PieceShading;
use super::theme::{Theme, is_book_theme, paint, paint_squares};
use crate::class::SquareClass;
use crate::placement::Placement;

/// Which side is at the bottom of the drawn board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// White at the bottom (a1 bottom-left).
    White,
    /// Black at the bottom (h8 bottom-left); the board is turned 180 degrees.
    Black,
}

impl Orientation {
    /// Reading-order placement index of the displayed square `(row, col)`.
    pub fn placement_index(self, row: usize, col: usize) -> usize {
        match self {
            Orientation::White => row * 8 + col,
            Orientation::Black => 63 - (row * 8 + col),
        }
    }

    /// Where the square `sq` is displayed: `(row, col)` from the picture's top left.
    pub fn displayed(self, sq: shakmaty::Square) -> (usize, usize) {
        let reading = crate::placement::reading_index(sq);
        let shown = match self {
            Orientation::White => reading,
            Orientation::Black => 63 - reading,
        };
        (shown / 8, shown % 8)
    }
}

/// Where coordinates are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coordinates {
    /// No coordinates.
    None,
    /// Small labels inside the edge squares (lichess, chess.com).
    Inside,
    /// Labels in a margin outside the board (books).
    Outside,
}

/// A drawn board with its geometry and what was put on it.
pub struct DrawnBoard {
    /// The picture (board plus margin for outside coordinates or a frame).
    pub pixmap: Pixmap,
    /// The board's squares inside the pixmap.
    pub grid: Grid,
    /// Names of the overlays drawn.
    pub overlays: Vec<String>,
    /// Paper between the lines of hatched or lined dark squares, in pixels across the lines.
    pub line_gap: Option<f32>,
    /// The move shown as just played (`overlays.played_move`), if any.
    pub last_move: Option<crate::last_move::MoveSquares>,
    /// Empty squares with a letter or sign written on them, bit `row * 8 + col` as drawn.
    pub lettered: u64,
}

/// Everything that decides how one board looks.
pub struct BoardLook<'a> {
    /// Square colours and style.
    pub theme: &'a Theme,
    /// Piece images.
    pub pieces: &'a PieceSet,
    /// Which side is at the bottom.
    pub orientation: Orientation,
    /// Coordinates style.
    pub coordinates: Coordinates,
    /// Side of one square in pixels.
    pub cell: f32,
    /// Piece size relative to a square (0.7..=1.0; from 0.5 with `small_pieces`).
    pub piece_scale: f32,
    /// Whether `piece_scale` was drawn below the config's smallest (`look.small_pieces`).
    pub small_pieces: bool,
    /// Frame line width in pixels (0: none).
    pub frame: f32,
    /// Engraved hatch shading on the pieces (book style), if any.
    pub shading: Option<PieceShading>,
    /// Recoloured pieces (training augmentation), if any.
    pub tint: Option<super::restyle::PieceTint>,
    /// Black men drawn as the white men with a grey body (training augmentation), if any:
    /// the tint applied to the white men's rasters (`PieceTint::grey_body`).
    pub grey_black_men: Option<super::restyle::PieceTint>,
    /// Pieces drawn in other proportions or mirrored (training augmentations), if any.
    pub stretch: Option<super::restyle::PieceStretch>,
    /// Pieces' dark lines drawn heavier (training augmentation), if any.
    pub heavy_lines: Option<super::restyle::HeavyLines>,
    /// Pieces bent by a smooth displacement field (training augmentation), if any.
    pub warp: Option<super::piece_warp::PieceWarp>,
    /// Worn lines or dots on a printed theme's dark squares (training augmentation), if any.
    pub rough_print: Option<super::hatching::RoughLines>,
    /// Hatch lines showing through the black pieces on dark squares in paper, this share
    /// of the pattern's width (training augmentation), if any.
    pub hatch_through: Option<f32>,
    /// A paper line just inside the black pieces' outline (training augmentation), if any.
    pub inner_line: Option<super::inner_line::InnerLine>,
    /// A paper mark in the black pieces' lower body (training augmentation), if any.
    pub inner_mark: Option<super::inner_line::InnerMark>,
}

impl<'a> BoardLook<'a> {
    /// A board as a program draws it, none of the training augmentations: white at the
    /// bottom, no coordinates, no frame, men filling their squares.
    pub fn plain(theme: &'a Theme, pieces: &'a PieceSet, cell: f32) -> BoardLook<'a> {
        BoardLook {
            theme,
            pieces,
            orientation: Orientation::White,
            coordinates: Coordinates::None,
            cell,
            piece_scale: 1.0,
            small_pieces: false,
            frame: 0.0,
            shading: None,
            tint: None,
            grey_black_men: None,
            stretch: None,
            heavy_lines: None,
            warp: None,
            rough_print: None,
            hatch_through: None,
            inner_line: None,
            inner_mark: None,
        }
    }
}

/// Draws `placement` as described by `look`, adding random overlays per `cfg`.
pub fn draw_board(
    placement: &Placement,
    look: &BoardLook<'_>,
    cfg: &OverlayConfig,
    rng: &mut impl Rng,
) -> Option<DrawnBoard> {
    let cell = look.cell.max(4.0);
    let margin = match look.coordinates {
        Coordinates::Outside => (cell * rng.random_range(0.35..0.6)).max(6.0),
        _ => 0.0,
    } + look.frame * 2.0;
    let side = cell * 8.0;
    let total = (side + 2.0 * margin).ceil() as u32;
    let mut pm = Pixmap::new(total, total)?;
    // Margins (coordinates, frame) sit on white paper or a light panel.
    let page = if is_book_theme(look.theme) {
        255
    } else {
        rng.random_range(200..=255u8)
    };
    pm.fill(resvg::tiny_skia::Color::from_rgba8(page, page, page, 255));
    let grid = Grid {
        x: margin,
        y: margin,
        cell,
    };
    // A diagram font on a book theme typesets the board with its own hatched squares, the
    // way the books set in that font look.
    let typeset = look.pieces.has_dark_glyphs()
        && is_book_theme(look.theme)
        && rng.random_bool(TYPESET_SHARE);
    let mut overlays = Vec::new();
    let (line_gap, hatching) = if typeset {
        draw_typeset_squares(&mut pm, &grid, look.pieces);
        overlays.push("typeset".into());
        // Diagram fonts hatch their dark squares with some 8-12 lines, about half ink.
        (Some(cell / 20.0), None)
    } else {
        if look.rough_print.is_some() {
            overlays.push("rough_print".into());
        }
        let hatching = paint_squares(
            &mut pm,
            grid.x,
            grid.y,
            cell,
            look.theme,
            look.rough_print.as_ref(),
            rng,
        );
        (hatching.map(|h| h.paper_between()), hatching)
    };
    let hatch_through = hatching.zip(look.hatch_through);
    if hatch_through.is_some() {
        overlays.push("hatch_through".into());
    }
    let occupied = |row: usize, col: usize| {
        placement.0[look.orientation.placement_index(row, col)] != SquareClass::Empty
    };

    // Under the pieces.
    let last_move = marks::under_pieces(&mut pm, &grid, placement, look, cfg, rng, &mut overlays);
    if look.coordinates == Coordinates::Inside {
        inside_coordinates(&mut pm, &grid, look, rng);
    }

    overlays.extend(draw_pieces(
        &mut pm,
        &grid,
        placement,
        look,
        typeset,
        hatch_through,
        rng,
    ));

    // Over the pieces.
    let lettered = marks::over_pieces(&mut pm, &grid, &occupied, cfg, rng, &mut overlays);
    if look.coordinates == Coordinates::Outside {
        outside_coordinates(&mut pm, &grid, look, margin - look.frame * 2.0, rng);
    }
    if look.frame > 0.0 {
        let mut pb = PathBuilder::new();
        let f = look.frame;
        if let Some(r) = Rect::from_xywh(grid.x - f / 2.0, grid.y - f / 2.0, side + f, side + f) {
            pb.push_rect(r);
        }
        if let Some(path) = pb.finish() {
            let stroke = Stroke {
                width: f,
                ..Stroke::default()
            };
            pm.stroke_path(
                &path,
                &paint([0, 0, 0], 255),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }
    Some(DrawnBoard {
        pixmap: pm,
        grid,
        overlays,
        line_gap,
        last_move,
        lettered,
    })
}

/// How often a diagram font with hatched glyphs typesets a book-theme board itself.
const TYPESET_SHARE: f64 = 0.7;

/// Dark squares in drawing order (row 0 at the top): a8 and h1 are light in both
/// orientations.
pub(super) fn is_dark(row: usize, col: usize) -> bool {
    (row + col) % 2 == 1
}

/// White paper with the font's empty hatched square on every dark square.
fn draw_typeset_squares(pm: &mut Pixmap, grid: &Grid, pieces: &PieceSet) {
    let size = grid.cell.round().max(1.0) as u32;
    let Some(empty) = pieces.dark_raster(SquareClass::Empty, size) else {
        return;
    };
    for row in 0..8 {
        for col in 0..8 {
            if is_dark(row, col) {
                let (cx, cy) = grid.centre(row, col);
                pm.draw_pixmap(
                    (cx - size as f32 / 2.0).round() as i32,
                    (cy - size as f32 / 2.0).round() as i32,
                    empty.as_ref().as_ref(),
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
        }
    }
}
