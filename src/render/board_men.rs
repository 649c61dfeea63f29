//! The men on a drawn board: each restyled as the board's look asks, placed at its
//! square's centre, over a paper rim or under hatching showing through on a book board.

use std::sync::Arc;

use rand::{Rng, RngExt};
use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};

use super::board::{BoardLook, is_dark};
use super::hatching::{Hatching, show_through};
use super::overlay::Grid;
use super::theme::is_book_theme;
use crate::class::SquareClass;
use crate::placement::Placement;

/// The men, restyled as `look` asks (each restyled raster made once per board), at their
/// squares' centres with a little jitter; over a paper rim on dark squares of a book
/// board when it draws one, and under hatch lines showing through when asked. Returns the
/// names of the restylings drawn, for the board's overlay list.
pub(super) fn draw_pieces(
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
