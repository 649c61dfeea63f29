//! Every board in a picture (a book page of diagrams, a screenshot of several games): the
//! finder is run again with each board found so far painted over; [`reading_order`] sorts
//! boards into rows top to bottom, each row left to right.

use image::RgbImage;

use super::{BoardNotFound, FinderConfig, FoundBoard, find};
use crate::quad::Quad;

/// Paint this far beyond each edge of a found board, as a share of its side: its frame
/// and the coordinates printed outside it go too.
const COVER_MARGIN: f32 = 0.12;

/// Fewest inner corners of a board after the first: past the best candidate of a page,
/// lines of text and other patterns are likelier than faint boards.
const FURTHER_MIN_CORNERS: usize = 30;
/// Smallest square contrast of a board after the first (screen boards score 2-8, printed
/// diagrams 1-4; candidates in lines of text 0.4-2.1, BENCHMARKS.md).
const FURTHER_MIN_CONTRAST: f32 = 1.0;

/// Candidates looked at beyond the boards asked for (patterns skipped on the way).
const EXTRA_TRIES: usize = 8;

/// Every board in `img`, at most `max_boards`, in the finder's order of preference: the
/// first is the board [`find`] returns; each next one is what [`find`] returns once the
/// boards before it are painted over (with their frames and outside coordinates). A
/// candidate with fewer than 30 inner corners or a square contrast under 1 is painted over
/// and skipped. The error is the first search's, when it finds no board at all. Text can
/// still make candidates (lines of glyphs answer like corners):
/// [`crate::recognize::Recognizer::recognize_all`] keeps a further board only when it
/// reads like one.
pub fn find_all(
    img: &RgbImage,
    cfg: &FinderConfig,
    max_boards: usize,
) -> Result<Vec<FoundBoard>, BoardNotFound> {
    let first = find(img, cfg)?;
    let mut page = img.clone();
    let mut covers: Vec<Quad> = Vec::new();
    let mut last = first.quad;
    let mut boards = vec![first];
    for _ in 0..max_boards + EXTRA_TRIES {
        if boards.len() >= max_boards {
            break;
        }
        let cover = last.grown(COVER_MARGIN);
        paint_over(&mut page, &cover);
        covers.push(cover);
        let Ok(next) = find(&page, cfg) else { break };
        // A board over a painted area would be a remnant of one already found.
        if covers.iter().any(|c| c.contains(next.quad.centre())) {
            break;
        }
        last = next.quad;
        if next.inner_corners >= FURTHER_MIN_CORNERS && next.square_contrast >= FURTHER_MIN_CONTRAST
        {
            boards.push(next);
        }
    }
    Ok(boards)
}

/// Reading order of boards at `quads`: indices into `quads`, rows top to bottom (a board
/// whose centre lies above the bottom of a row's first board joins that row), each row
/// left to right.
pub fn reading_order(quads: &[Quad]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..quads.len()).collect();
    order.sort_by(|&a, &b| quads[a].centre()[1].total_cmp(&quads[b].centre()[1]));
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for k in order {
        let joins = rows
            .last()
            .and_then(|row| row.first())
            .is_some_and(|&first| {
                let (_, _, _, bottom) = quads[first].bounds();
                quads[k].centre()[1] < bottom
            });
        match rows.last_mut() {
            Some(row) if joins => row.push(k),
            _ => rows.push(vec![k]),
        }
    }
    for row in &mut rows {
        row.sort_by(|&a, &b| quads[a].centre()[0].total_cmp(&quads[b].centre()[0]));
    }
    rows.into_iter().flatten().collect()
}

/// Fills the quad with the mean colour just outside it: flat, so the finder sees no
/// corners there, and close to the page around it, so its edges are faint.
fn paint_over(img: &mut RgbImage, q: &Quad) {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return;
    }
    let ring = q.grown(0.02);
    let mut sum = [0f64; 3];
    let mut n = 0.0;
    for i in 0..4 {
        let (a, b) = (ring.0[i], ring.0[(i + 1) % 4]);
        for k in 0..16 {
            let t = k as f32 / 16.0;
            let (x, y) = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]));
            if x >= 0.0 && y >= 0.0 && x < w as f32 && y < h as f32 {
                let p = img.get_pixel(x as u32, y as u32);
                for c in 0..3 {
                    sum[c] += f64::from(p[c]);
                }
                n += 1.0;
            }
        }
    }
    let fill = if n > 0.0 {
        image::Rgb(sum.map(|s| (s / n).round() as u8))
    } else {
        image::Rgb([128, 128, 128])
    };
    let (x0, y0, x1, y1) = q.bounds();
    let clamp = |v: f32, hi: u32| (v.max(0.0) as u32).min(hi);
    for y in clamp(y0.floor(), h)..clamp(y1.ceil() + 1.0, h) {
        for x in clamp(x0.floor(), w)..clamp(x1.ceil() + 1.0, w) {
            if q.contains([x as f32 + 0.5, y as f32 + 0.5]) {
                img.put_pixel(x, y, fill);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_come_in_reading_order() {
        // Two rows of two, the second board of the first row a little higher than the
        // first, and a lone board below.
        let quads = [
            Quad::square(500.0, 420.0, 200.0),
            Quad::square(260.0, 10.0, 200.0),
            Quad::square(10.0, 40.0, 200.0),
            Quad::square(10.0, 700.0, 150.0),
            Quad::square(20.0, 400.0, 220.0),
        ];
        assert_eq!(reading_order(&quads), vec![2, 1, 4, 0, 3]);
    }

    #[test]
    fn painting_over_fills_the_grown_quad_only() {
        let mut img = RgbImage::from_fn(100, 100, |x, _| {
            image::Rgb(if x < 50 {
                [200, 200, 200]
            } else {
                [10, 10, 10]
            })
        });
        let q = Quad::square(60.0, 20.0, 30.0);
        paint_over(&mut img, &q);
        // Inside: one flat colour; outside, on the left: untouched.
        let inside = *img.get_pixel(75, 35);
        assert!((62..90).all(|x| *img.get_pixel(x, 35) == inside));
        assert_eq!(img.get_pixel(10, 10).0, [200, 200, 200]);
        assert!(q.contains([75.0, 35.0]) && !q.contains([10.0, 10.0]));
    }
}
