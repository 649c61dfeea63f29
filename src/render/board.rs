//! Drawing one flat board: squares, overlays, coordinates, pieces, frame.

use std::sync::Arc;

use rand::{Rng, RngExt};
use resvg::tiny_skia::{PathBuilder, Pixmap, PixmapPaint, Rect, Stroke, Transform};
use serde::{Deserialize, Serialize};

use super::config::OverlayConfig;
use super::hatching::{Hatching, show_through};
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
    marks::over_pieces(&mut pm, &grid, &occupied, cfg, rng, &mut overlays);
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
    })
}

/// The men, restyled as `look` asks (each restyled raster made once per board), at their
/// squares' centres with a little jitter; over a paper rim on dark squares of a book
/// board when it draws one, and under hatch lines showing through when asked. Returns the
/// names of the restylings drawn, for the board's overlay list.
fn draw_pieces(
    pm: &mut Pixmap,
    grid: &Grid,
    placement: &Placement,
    look: &BoardLook<'_>,
    typeset: bool,
    hatch_through: Option<(Hatching, f32)>,
    rng: &mut impl Rng,
) -> Vec<String> {
    let cell = grid.cell;
    let mut overlays = Vec::new();
    if look.shading.is_some() {
        overlays.push("shaded_pieces".into());
    }
    let (size, jitter) = if typeset {
        (cell.round().max(1.0) as u32, 0.0)
    } else {
        (
            (cell * look.piece_scale).round().max(1.0) as u32,
            cell * 0.03,
        )
    };
    // Typesetters knock the dark-square pattern out around a piece, leaving a thin paper
    // rim; without it a black piece sinks into the hatching.
    let halo = (is_book_theme(look.theme) && !typeset && rng.random_bool(HALO_SHARE)).then(|| {
        (size as f32 * rng.random_range(0.03..0.07f32))
            .max(1.0)
            .round() as u32
    });
    if halo.is_some() {
        overlays.push("halo".into());
    }
    if look.tint.is_some() {
        overlays.push("tinted_pieces".into());
    }
    if look.grey_black_men.is_some() && !typeset {
        overlays.push("grey_black_men".into());
    }
    if look.stretch.is_some_and(|s| s.changes_proportions()) {
        overlays.push("stretched_pieces".into());
    }
    if look.stretch.is_some_and(|s| s.is_mirrored()) {
        overlays.push("mirrored_pieces".into());
    }
    if look.heavy_lines.is_some() && !typeset {
        overlays.push("heavy_lines".into());
    }
    if look.warp.is_some() && !typeset {
        overlays.push("warped_pieces".into());
    }
    if look.small_pieces && !typeset {
        overlays.push("small_pieces".into());
    }
    let mut stretched: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut heavy: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut warped: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut lined: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut marked: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut tinted: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut greyed: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    // A typeset glyph carries its square's pattern: it is drawn as the font has it.
    let grey_black = look.grey_black_men.as_ref().filter(|_| !typeset);
    let mut shaded: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    let mut rims: Vec<(Arc<Pixmap>, Arc<Pixmap>)> = Vec::new();
    for row in 0..8 {
        for col in 0..8 {
            let class = placement.0[look.orientation.placement_index(row, col)];
            if class == SquareClass::Empty {
                continue;
            }
            let img = match (grey_black, class) {
                (Some(grey), SquareClass::Piece(p)) if p.color == shakmaty::Color::Black => {
                    let white = SquareClass::Piece(shakmaty::Piece {
                        color: shakmaty::Color::White,
                        role: p.role,
                    });
                    look.pieces.raster(white, size).map(|src| {
                        once_per_raster(&mut greyed, &src, |src| {
                            grey.apply(src, shakmaty::Color::White)
                        })
                    })
                }
                _ if typeset && is_dark(row, col) => look.pieces.dark_raster(class, size),
                _ => look.pieces.raster(class, size),
            };
            let Some(mut img) = img else {
                continue;
            };
            // A typeset glyph carries its square's pattern: restyling it would restyle
            // the square too.
            let restyle = !typeset;
            if let Some(stretch) = look.stretch.as_ref().filter(|_| restyle) {
                img = once_per_raster(&mut stretched, &img, |src| stretch.apply(src));
            }
            if let Some(warp) = look.warp.as_ref().filter(|_| restyle) {
                img = once_per_raster(&mut warped, &img, |src| warp.apply(src));
            }
            if let Some(weight) = look.heavy_lines.as_ref().filter(|_| restyle) {
                img = once_per_raster(&mut heavy, &img, |src| weight.apply(src));
            }
            // Before the tint, so that a tinted board's line takes its light colour.
            if let (Some(line), SquareClass::Piece(p)) = (&look.inner_line, class)
                && restyle
                && p.color == shakmaty::Color::Black
            {
                img = once_per_raster(&mut lined, &img, |src| line.apply(src));
            }
            if let (Some(mark), SquareClass::Piece(p)) = (&look.inner_mark, class)
                && restyle
                && p.color == shakmaty::Color::Black
            {
                img = once_per_raster(&mut marked, &img, |src| mark.apply(src));
            }
            if let (Some(tint), SquareClass::Piece(p)) = (&look.tint, class)
                && restyle
                && tint.tints(p.color)
                && !(grey_black.is_some() && p.color == shakmaty::Color::Black)
            {
                img = once_per_raster(&mut tinted, &img, |src| tint.apply(src, p.color));
            }
            if let (Some(shading), SquareClass::Piece(p)) = (&look.shading, class)
                && shading.shades(p.color)
            {
                img = once_per_raster(&mut shaded, &img, |src| shading.apply(src, p.color));
            }
            let (cx, cy) = grid.centre(row, col);
            let dx = rng.random_range(-jitter..=jitter);
            let dy = rng.random_range(-jitter..=jitter);
            let x = (cx - size as f32 / 2.0 + dx).round() as i32;
            let y = (cy - size as f32 / 2.0 + dy).round() as i32;
            if let Some(radius) = halo
                && is_dark(row, col)
            {
                let rim = once_per_raster(&mut rims, &img, |src| paper_rim(src, radius));
                pm.draw_pixmap(
                    x,
                    y,
                    rim.as_ref().as_ref(),
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
            pm.draw_pixmap(
                x,
                y,
                img.as_ref().as_ref(),
                &PixmapPaint::default(),
                Transform::identity(),
                None,
            );
            if let Some((h, weight)) = hatch_through.filter(|_| is_dark(row, col)) {
                let square = (
                    grid.x + col as f32 * cell - x as f32,
                    grid.y + row as f32 * cell - y as f32,
                );
                if let Some(over) = show_through(&img, square, cell, &h, weight, look.theme.light) {
                    let paint = PixmapPaint::default();
                    pm.draw_pixmap(x, y, over.as_ref(), &paint, Transform::identity(), None);
                }
            }
        }
    }

    // Labelled only where a line was drawn: small or hollow black men get none.
    if lined.iter().any(|(src, done)| src.data() != done.data()) {
        overlays.push("inner_lines".into());
    }
    if marked.iter().any(|(src, done)| src.data() != done.data()) {
        overlays.push("inner_marks".into());
    }
    overlays
}

/// How often a diagram font with hatched glyphs typesets a book-theme board itself.
const TYPESET_SHARE: f64 = 0.7;

/// `make(src)`, computed once per distinct raster of a board (eight pawns share one) and
/// kept in `cache`.
fn once_per_raster(
    cache: &mut Vec<(Arc<Pixmap>, Arc<Pixmap>)>,
    src: &Arc<Pixmap>,
    make: impl FnOnce(&Pixmap) -> Pixmap,
) -> Arc<Pixmap> {
    if let Some((_, done)) = cache.iter().find(|(s, _)| Arc::ptr_eq(s, src)) {
        return done.clone();
    }
    let done = Arc::new(make(src));
    cache.push((src.clone(), done.clone()));
    done
}

/// Share of the other book-theme boards whose pieces are knocked out of the dark squares'
/// pattern with a paper rim.
const HALO_SHARE: f64 = 0.5;

/// The piece's silhouette grown by `radius` pixels, in opaque white: drawn under the piece,
/// it clears the square's pattern around it. Grows the alpha with a square max filter
/// (rows, then columns).
fn paper_rim(piece: &Pixmap, radius: u32) -> Pixmap {
    let (w, h) = (piece.width() as usize, piece.height() as usize);
    let r = radius as usize;
    let alpha: Vec<u8> = piece.pixels().iter().map(|p| p.alpha()).collect();
    let mut rows = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let (a, b) = (x.saturating_sub(r), (x + r).min(w - 1));
            rows[y * w + x] = alpha[y * w + a..=y * w + b]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
        }
    }
    let mut out = piece.clone();
    for (i, px) in out.pixels_mut().iter_mut().enumerate() {
        let (x, y) = (i % w, i / w);
        let (a, b) = (y.saturating_sub(r), (y + r).min(h - 1));
        let grown = (a..=b).map(|yy| rows[yy * w + x]).max().unwrap_or(0);
        // Only where the piece is solid enough to be seen: its faint antialiased edge must
        // not spread a rim across the whole raster.
        let v = if grown >= 96 { 255 } else { 0 };
        *px = resvg::tiny_skia::ColorU8::from_rgba(v, v, v, v).premultiply();
    }
    out
}

/// Dark squares in drawing order (row 0 at the top): a8 and h1 are light in both
/// orientations.
fn is_dark(row: usize, col: usize) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_rim_grows_the_solid_silhouette_only() {
        // A 20x20 raster with an opaque 4x4 block in the middle and a faint pixel far away.
        let mut pm = Pixmap::new(20, 20).unwrap();
        for y in 8..12 {
            for x in 8..12 {
                pm.pixels_mut()[y * 20 + x] =
                    resvg::tiny_skia::ColorU8::from_rgba(0, 0, 0, 255).premultiply();
            }
        }
        pm.pixels_mut()[2 * 20 + 2] =
            resvg::tiny_skia::ColorU8::from_rgba(0, 0, 0, 40).premultiply();
        let rim = paper_rim(&pm, 2);
        let solid = |x: usize, y: usize| rim.pixels()[y * 20 + x].alpha() == 255;
        let white = |x: usize, y: usize| rim.pixels()[y * 20 + x].demultiply().red() == 255;
        // The block grown by 2 on every side, in white.
        assert!((6..14).all(|y| (6..14).all(|x| solid(x, y) && white(x, y))));
        // Nothing beyond, and the faint speck spreads nothing.
        assert!(!solid(5, 10) && !solid(14, 10) && !solid(10, 5) && !solid(10, 14));
        assert!(!solid(2, 2) && !solid(3, 3));
    }
}
