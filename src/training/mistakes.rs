//! A picture of the validation mistakes: each misclassified crop enlarged, with what it is
//! and what the model said, so a person can tell a model's blind spot from a sample no one
//! could read.

use image::{RgbImage, imageops::FilterType};
use resvg::tiny_skia::Pixmap;

use super::data::SquareSet;
use super::eval::Mistake;
use crate::render::scene::to_rgb;
use crate::render::text::{draw_text, fonts};

/// Enlargement of each crop.
const ZOOM: u32 = 3;
/// Height of the caption under each crop.
const CAPTION: u32 = 14;
/// Tiles per row.
const COLUMNS: u32 = 16;

/// Lays out at most `max` of `mistakes` (the most confident first: those are what a
/// threshold cannot catch) as a grid of enlarged crops captioned `truth>predicted NN%`
/// and the board's pixels of detail per square. `None` when there is nothing to show.
pub fn mistake_sheet(set: &SquareSet, mistakes: &[Mistake], max: usize) -> Option<RgbImage> {
    let mut shown: Vec<&Mistake> = mistakes.iter().filter(|m| m.index < set.len()).collect();
    if shown.is_empty() || max == 0 {
        return None;
    }
    shown.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    shown.truncate(max);
    let s = set.size as u32;
    let (tile_w, tile_h) = (s * ZOOM + 4, s * ZOOM + CAPTION + 4);
    let cols = COLUMNS.min(shown.len() as u32);
    let rows = (shown.len() as u32).div_ceil(cols);
    let mut sheet = Pixmap::new(cols * tile_w, rows * tile_h)?;
    sheet.fill(resvg::tiny_skia::Color::from_rgba8(40, 40, 40, 255));
    let font_list = fonts();
    let font = font_list.first()?;
    for (k, m) in shown.iter().enumerate() {
        let (x, y) = ((k as u32 % cols) * tile_w, (k as u32 / cols) * tile_h);
        let crop = set.crop(m.index)?;
        let big = image::imageops::resize(&crop, s * ZOOM, s * ZOOM, FilterType::Nearest);
        for (px, py, p) in big.enumerate_pixels() {
            let i = ((y + 2 + py) * sheet.width() + x + 2 + px) as usize;
            sheet.pixels_mut()[i] =
                resvg::tiny_skia::ColorU8::from_rgba(p.0[0], p.0[1], p.0[2], 255).premultiply();
        }
        let caption = format!(
            "{}>{} {:.0}% {}px",
            m.truth.name(),
            m.predicted.name(),
            m.confidence * 100.0,
            set.square_px.get(m.index).copied().unwrap_or(0)
        );
        draw_text(
            &mut sheet,
            font,
            11.0,
            x as f32 + 2.0,
            (y + s * ZOOM + 3) as f32,
            [230, 230, 230],
            &caption,
        );
    }
    Some(to_rgb(&sheet))
}

/// One line of JSON a mistake, in crop order: which board of the set (a validation set
/// holds every square of each board, 64 crops a board in image reading order), the
/// square's row and column in the picture, what it is, what the model said and how sure,
/// and the board's pixels of detail per square and piece set. A board with many lines is one picture
/// read badly; many boards with one line each are a blind spot spread over the set.
pub fn mistake_lines(set: &SquareSet, mistakes: &[Mistake]) -> String {
    let mut shown: Vec<&Mistake> = mistakes.iter().filter(|m| m.index < set.len()).collect();
    shown.sort_by_key(|m| m.index);
    shown
        .iter()
        .map(|m| {
            let line = serde_json::json!({
                "board": m.index / 64,
                "row": m.index % 64 / 8,
                "column": m.index % 8,
                "truth": m.truth.name(),
                "predicted": m.predicted.name(),
                "confidence": (f64::from(m.confidence) * 1000.0).round() / 1000.0,
                "square_px": set.square_px.get(m.index).copied().unwrap_or(0),
                "piece_set": set.piece_set_of(m.index).unwrap_or(""),
            });
            format!("{line}\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::class::SquareClass;
    use image::Rgb;

    #[test]
    fn one_tile_per_mistake_most_confident_first() {
        let set = SquareSet {
            size: 4,
            pixels: [vec![0u8; 48], vec![255u8; 48]].concat(),
            labels: vec![1, 7],
            square_px: vec![20, 30],
            ..SquareSet::default()
        };
        let mistake = |index, confidence| Mistake {
            index,
            truth: SquareClass::from_index(1).unwrap(),
            predicted: SquareClass::from_index(7).unwrap(),
            confidence,
        };
        let sheet = mistake_sheet(&set, &[mistake(0, 0.5), mistake(1, 0.9)], 10).unwrap();
        assert_eq!(sheet.dimensions(), (2 * 16, 12 + CAPTION + 4));
        // The white crop (more confident) comes first.
        assert_eq!(sheet.get_pixel(5, 5), &Rgb([255, 255, 255]));
        assert_eq!(sheet.get_pixel(16 + 5, 5), &Rgb([0, 0, 0]));
        assert!(mistake_sheet(&set, &[], 10).is_none());
    }

    #[test]
    fn one_line_per_mistake_in_crop_order() {
        let set = SquareSet {
            size: 1,
            pixels: vec![0u8; 3 * 200],
            labels: vec![0; 200],
            square_px: vec![13; 200],
            piece_set: vec![1; 200],
            piece_sets: vec!["alpha".into(), "maya".into()],
        };
        let mistake = |index, confidence| Mistake {
            index,
            truth: SquareClass::from_name("wB").unwrap(),
            predicted: SquareClass::from_name("wP").unwrap(),
            confidence,
        };
        let text = mistake_lines(
            &set,
            &[mistake(140, 0.9), mistake(3, 0.6), mistake(900, 1.0)],
        );
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The crop past the set's end is left out; board 2's square 12 is row 1, column 4.
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["board"], 0);
        assert_eq!(lines[0]["column"], 3);
        assert_eq!(lines[1]["board"], 2);
        assert_eq!(lines[1]["row"], 1);
        assert_eq!(lines[1]["column"], 4);
        assert_eq!(lines[1]["truth"], "wB");
        assert_eq!(lines[1]["predicted"], "wP");
        assert_eq!(lines[1]["confidence"], 0.9);
        assert_eq!(lines[1]["square_px"], 13);
        assert_eq!(lines[1]["piece_set"], "maya");
    }
}
