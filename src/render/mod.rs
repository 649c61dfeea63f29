//! Synthetic boards: random positions drawn in many piece sets, themes, overlays, scenes and
//! degradations, with exact labels. The data factory behind `synth` and `train`.

pub mod arrows;
pub mod bend;
pub mod board;
mod board_men;
pub mod camera;
pub mod config;
pub mod degrade;
pub mod font_pieces;
pub mod hatching;
pub mod inner_line;
mod labels;
mod marks;
pub mod noise;
pub mod overlay;
mod panels;
pub mod piece_warp;
pub mod pieces;
pub mod positions;
mod print;
mod resample;
pub mod restyle;
pub mod scene;
pub mod shading;
pub mod sheet;
pub mod sprite_pieces;
pub mod staunton;
pub mod text;
pub mod theme;
pub mod xorshift;

use image::RgbImage;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::placement::Placement;
use crate::quad::{Point, Quad};
pub use board::{Coordinates, Orientation};
pub use config::SynthConfig;
pub use pieces::PieceSet;

/// One rendered image and everything known about it.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The picture.
    pub image: RgbImage,
    /// The true position.
    pub placement: Placement,
    /// Which side is at the bottom.
    pub orientation: Orientation,
    /// The board's corners in image order (top-left, top-right, bottom-right, bottom-left).
    pub quad: Quad,
    /// Name of the piece set.
    pub piece_set: String,
    /// Name of the board theme.
    pub theme: String,
    /// Coordinates drawn.
    pub coordinates: Coordinates,
    /// Overlays drawn.
    pub overlays: Vec<String>,
    /// Scene and degradation effects applied.
    pub effects: Vec<String>,
    /// Side of a square in pixels of detail (see [`degrade::Degraded::square_px`]).
    pub square_px: f32,
    /// The move shown as just played (`overlays.played_move`), if any.
    pub last_move: Option<crate::last_move::MoveSquares>,
    /// Empty squares with a letter or sign written on them (`overlays.square_letters`),
    /// bit `row * 8 + col` of the board as drawn: the crops' order
    /// ([`crate::dataset::writer::board_squares`]).
    pub lettered: u64,
}

/// The board corners named by the squares they belong to, as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SquareCorners {
    /// Outer corner of a8.
    pub a8: Point,
    /// Outer corner of h8.
    pub h8: Point,
    /// Outer corner of h1.
    pub h1: Point,
    /// Outer corner of a1.
    pub a1: Point,
}

impl SquareCorners {
    /// From an image-order quad and the orientation.
    pub fn from_quad(q: &Quad, o: Orientation) -> SquareCorners {
        let [tl, tr, br, bl] = q.0;
        match o {
            Orientation::White => SquareCorners {
                a8: tl,
                h8: tr,
                h1: br,
                a1: bl,
            },
            Orientation::Black => SquareCorners {
                a8: br,
                h8: bl,
                h1: tl,
                a1: tr,
            },
        }
    }

    /// Back to an image-order quad.
    pub fn to_quad(&self, o: Orientation) -> Quad {
        match o {
            Orientation::White => Quad([self.a8, self.h8, self.h1, self.a1]),
            Orientation::Black => Quad([self.h1, self.a1, self.a8, self.h8]),
        }
    }
}

/// Draws boards from a list of piece sets and a config. Every image is a pure function of
/// `(seed, index)`, so the output does not depend on thread count or order.
pub struct Renderer {
    sets: std::sync::Arc<Vec<PieceSet>>,
    cfg: SynthConfig,
}

/// Least share of book themes for a piece set typeset from a diagram font.
const FONT_BOOK_SHARE: f64 = 0.5;

/// Smallest piece size relative to a square drawn by `look.small_pieces`.
const SMALL_PIECE_SCALE: f32 = 0.5;

/// Smallest square side (pixels) drawn with engraved piece shading.
const MIN_SHADED_CELL: f32 = 20.0;
/// What the squares path keeps around the board, in squares: a crop's context (0.125)
/// plus the largest simulated finder error (0.06), with room to spare.
const SQUARES_ROOM: f32 = 0.3;

/// Luma (Rec. 601 weights, 0..=255) of a demultiplied pixel: how dark a piece's ink is.
pub(crate) fn luma(c: resvg::tiny_skia::ColorU8) -> f32 {
    0.299 * f32::from(c.red()) + 0.587 * f32::from(c.green()) + 0.114 * f32::from(c.blue())
}

/// Mixed into the seed of the stream that draws an app's panels (`scene.app_panels`).
const PANEL_STREAM: u64 = 0x7061_6e65_6c73;
/// Mixed into the seed of the stream that draws a page's curl and a lens's distortion
/// (`scene.curl`, `scene.lens`).
const BEND_STREAM: u64 = 0x6265_6e64;

/// The random streams one image is drawn from.
struct Streams<'a> {
    main: &'a mut ChaCha8Rng,
    panels: &'a mut ChaCha8Rng,
    bend: &'a mut ChaCha8Rng,
}

/// The per-image random stream: independent of how images are spread over threads.
pub fn item_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

impl Renderer {
    /// A renderer; fails when `sets` is empty or the config is invalid.
    pub fn new(sets: Vec<PieceSet>, cfg: SynthConfig) -> Result<Renderer, String> {
        cfg.validate()?;
        if sets.is_empty() {
            return Err("no piece sets given".into());
        }
        Ok(Renderer {
            sets: std::sync::Arc::new(sets),
            cfg,
        })
    }

    /// The same piece sets drawn with another config (training validates without its
    /// training-only augmentations).
    pub fn with_config(&self, cfg: SynthConfig) -> Result<Renderer, String> {
        cfg.validate()?;
        Ok(Renderer {
            sets: self.sets.clone(),
            cfg,
        })
    }

    /// The config in use.
    pub fn config(&self) -> &SynthConfig {
        &self.cfg
    }

    /// The piece sets in use.
    pub fn sets(&self) -> &[PieceSet] {
        &self.sets
    }

    /// Renders image number `index` of the run with `seed`.
    pub fn render(&self, seed: u64, index: u64) -> Rendered {
        self.render_with(seed, index, false)
    }

    /// Image `index` as [`Self::render`] draws it, but with the scene cut down to the board
    /// and a margin before the camera and degradations: the same board, position and look,
    /// for a fraction of the per-pixel work when only the squares are wanted. (Effects that
    /// depend on the image size, like a lighting gradient, then span the smaller image.)
    pub fn render_board_area(&self, seed: u64, index: u64) -> Rendered {
        self.render_with(seed, index, true)
    }

    fn render_with(&self, seed: u64, index: u64, board_area: bool) -> Rendered {
        let mut rng = item_rng(seed, index);
        // An app's panels come from a stream of their own: turning them on changes nothing
        // else in the picture.
        let mut panel_rng = item_rng(seed ^ PANEL_STREAM, index);
        // So is a bend: a set drawn with one shows the same boards bent.
        let mut bend_rng = item_rng(seed ^ BEND_STREAM, index);
        // A rare failure (degenerate geometry) is retried with the next draws of the stream;
        // after a few, the scene falls back to a plain cropped board so this never hangs.
        let mut plain = self.cfg;
        plain.scene.cropped = 1.0;
        plain.scene.rotation.probability = 0.0;
        plain.scene.perspective.probability = 0.0;
        plain.scene.max_board = plain.scene.max_board.min(1024);
        plain.scene.min_board = plain.scene.min_board.min(plain.scene.max_board);
        let mut attempt = 0;
        loop {
            let cfg = if attempt < 20 { &self.cfg } else { &plain };
            let streams = Streams {
                main: &mut rng,
                panels: &mut panel_rng,
                bend: &mut bend_rng,
            };
            if let Some(r) = self.try_render(cfg, streams, board_area) {
                return r;
            }
            attempt += 1;
        }
    }

    fn try_render(
        &self,
        cfg: &SynthConfig,
        streams: Streams,
        board_area: bool,
    ) -> Option<Rendered> {
        let Streams {
            main: rng,
            panels: panel_rng,
            bend: bend_rng,
        } = streams;
        let placement = positions::random_position(&cfg.positions, rng);
        let orientation = if rng.random_bool(cfg.look.black_bottom) {
            Orientation::Black
        } else {
            Orientation::White
        };
        let set = &self.sets[rng.random_range(0..self.sets.len())];
        // Diagram fonts mostly appear in print: give them book themes more often.
        let book_share = if set.has_dark_glyphs() {
            cfg.look.book_theme.max(FONT_BOOK_SHARE)
        } else {
            cfg.look.book_theme
        };
        // White men without dark ink would vanish on a book's white squares: never in print.
        let allow_books = !set.white_men_faint();
        let theme = theme::random_theme(cfg.look.random_theme, book_share, allow_books, rng);
        let r: f64 = rng.random();
        let coordinates = if r < cfg.look.coordinates_inside {
            Coordinates::Inside
        } else if r < cfg.look.coordinates_inside + cfg.look.coordinates_outside
            || (theme::is_book_theme(&theme) && r < 0.8)
        {
            Coordinates::Outside
        } else {
            Coordinates::None
        };
        let (lo, hi) = (cfg.scene.min_board as f32, cfg.scene.max_board as f32);
        let side = (lo.ln() + rng.random::<f32>() * (hi.ln() - lo.ln())).exp();
        let cell = (side / 8.0).round().max(4.0);
        let frame = if theme::is_book_theme(&theme) || rng.random_bool(cfg.look.frame) {
            (cell * rng.random_range(0.02..0.08f32)).max(1.0).round()
        } else {
            0.0
        };
        let piece_scale = rng.random_range(cfg.look.min_piece_scale..=1.0);
        // Drawn only when asked for, so that sets made without it keep their bytes.
        let small_pieces = cfg.look.small_pieces > 0.0
            && cfg.look.min_piece_scale > SMALL_PIECE_SCALE
            && rng.random_bool(cfg.look.small_pieces);
        let look = board::BoardLook {
            theme: &theme,
            pieces: set,
            orientation,
            coordinates,
            cell,
            piece_scale: if small_pieces {
                rng.random_range(SMALL_PIECE_SCALE..cfg.look.min_piece_scale)
            } else {
                piece_scale
            },
            small_pieces,
            frame,
            // Engraved shading is a print style (books), and needs room: below ~20 pixels
            // a square its lines only turn a white piece grey (such books print large).
            shading: (theme::is_book_theme(&theme)
                && rng.random_bool(cfg.look.shaded_pieces)
                && cell >= MIN_SHADED_CELL)
                .then(|| shading::PieceShading::random(rng)),
            // Drawn only when asked for, so that sets made without it keep their bytes.
            tint: (cfg.look.tinted_pieces > 0.0 && rng.random_bool(cfg.look.tinted_pieces))
                .then(|| restyle::PieceTint::random(rng)),
            grey_black_men: (cfg.look.grey_black_men > 0.0
                && rng.random_bool(cfg.look.grey_black_men))
            .then(|| restyle::PieceTint::grey_body(rng)),
            stretch: {
                let stretch = (cfg.look.stretched_pieces > 0.0
                    && rng.random_bool(cfg.look.stretched_pieces))
                .then(|| restyle::PieceStretch::random(rng));
                // A mirror is a stretch by -1 across the piece's centre line: one
                // resampling draws both.
                if cfg.look.mirrored_pieces > 0.0 && rng.random_bool(cfg.look.mirrored_pieces) {
                    Some(stretch.unwrap_or(restyle::PieceStretch::NONE).mirrored())
                } else {
                    stretch
                }
            },
            heavy_lines: (cfg.look.heavy_lines > 0.0 && rng.random_bool(cfg.look.heavy_lines))
                .then(|| restyle::HeavyLines::random(rng)),
            warp: (cfg.look.warped_pieces > 0.0 && rng.random_bool(cfg.look.warped_pieces))
                .then(|| piece_warp::PieceWarp::random(rng)),
            rough_print: (cfg.look.rough_print > 0.0
                && theme::has_line_or_dot_pattern(&theme)
                && rng.random_bool(cfg.look.rough_print))
            .then(|| hatching::RoughLines::random(rng)),
            hatch_through: (cfg.look.hatch_through > 0.0
                && theme::has_line_or_dot_pattern(&theme)
                && rng.random_bool(cfg.look.hatch_through))
            .then(|| rng.random_range(0.35..1.0f32)),
            inner_line: (cfg.look.inner_lines > 0.0 && rng.random_bool(cfg.look.inner_lines))
                .then(|| inner_line::InnerLine::random(rng)),
            inner_mark: (cfg.look.inner_marks > 0.0 && rng.random_bool(cfg.look.inner_marks))
                .then(|| inner_line::InnerMark::random(rng)),
        };
        let drawn = board::draw_board(&placement, &look, &cfg.overlays, rng)?;
        let board = scene::BoardToPlace {
            pixmap: &drawn.pixmap,
            inner: (drawn.grid.x, drawn.grid.y),
            side: cell * 8.0,
            set,
        };
        let (scene, panels) =
            scene::compose(board, &cfg.scene, &cfg.overlays, &self.sets, panel_rng, rng)?;
        let scene = if board_area {
            // Room for the crop context, and for the board to turn and skew without the
            // camera having to shrink it to fit.
            let side = cell * 8.0;
            let turn = cfg.scene.rotation.strength.to_radians().sin().abs();
            scene.around_board(side * (0.2 + cfg.scene.perspective.strength + turn))?
        } else {
            scene
        };
        let mut image = scene::to_rgb(&scene.canvas);
        let mut quad = scene.quad;
        let mut effects = Vec::new();
        if !panels.is_empty() {
            effects.push(format!("panels:{}", panels.join("+")));
        }
        // The page curls before the camera sees it at an angle.
        let curl = cfg.scene.curl;
        if curl.probability > 0.0 && bend_rng.random_bool(curl.probability) {
            let page = bend::Curl::random(curl.strength, bend_rng);
            if let Some((img, q)) = page.apply(&image, &quad) {
                (image, quad) = (img, q);
                effects.push(page.describe());
            }
        }
        let rotate = rng.random_bool(cfg.scene.rotation.probability);
        let skew = rng.random_bool(cfg.scene.perspective.probability);
        if rotate || skew {
            let angle = if rotate {
                rng.random_range(-1.0..=1.0f32) * cfg.scene.rotation.strength
            } else {
                0.0
            };
            let amount = if skew {
                rng.random_range(0.0..=cfg.scene.perspective.strength)
            } else {
                0.0
            };
            let keep = board_area.then_some(SQUARES_ROOM);
            let (img, q) = camera::perspective(&image, &quad, angle, amount, keep, rng)?;
            image = img;
            quad = q;
            effects.push(format!("perspective:{angle:.1}deg,{amount:.2}"));
        }
        let lens = cfg.scene.lens;
        if lens.probability > 0.0 && bend_rng.random_bool(lens.probability) {
            let glass = bend::Lens::random(lens.strength, bend_rng);
            if let Some((img, q)) = glass.apply(&image, &quad) {
                (image, quad) = (img, q);
                effects.push(glass.describe());
            }
        }
        if board_area {
            // The squares use the board and the bit of context their crops take around it:
            // the degradations then work on a fraction of the pixels.
            (image, quad) = camera::crop_around(&image, &quad, SQUARES_ROOM);
        }
        let degraded = degrade::degrade(
            &mut image,
            quad.mean_side() / 8.0,
            theme::medium(&theme),
            drawn
                .line_gap
                .map(|gap| gap * quad.mean_side() / (cell * 8.0)),
            &cfg.degrade,
            rng,
        );
        effects.extend(degraded.effects);
        // Drawn only when asked for, so that sets made without them keep their bytes.
        let squash = cfg.scene.squash;
        if squash.probability > 0.0 && rng.random_bool(squash.probability) {
            let share = rng.random_range(squash.strength.min(1.0)..=1.0);
            let across = rng.random_bool(0.5);
            let squeezed = camera::squashed(&image, share, across);
            quad = camera::rescaled(&quad, image.dimensions(), squeezed.dimensions());
            image = squeezed;
            effects.push(format!(
                "squash:{}:{share:.2}",
                if across { "width" } else { "height" }
            ));
        }
        if cfg.scene.quarter_turn > 0.0 && rng.random_bool(cfg.scene.quarter_turn) {
            let clockwise = rng.random_bool(0.5);
            (image, quad) = camera::quarter_turn(&image, &quad, clockwise);
            effects.push(format!(
                "quarter_turn:{}",
                if clockwise {
                    "clockwise"
                } else {
                    "anticlockwise"
                }
            ));
        }
        Some(Rendered {
            image,
            placement,
            orientation,
            quad,
            piece_set: set.name.clone(),
            theme: theme.name.clone(),
            coordinates,
            overlays: drawn.overlays,
            effects,
            square_px: degraded.square_px,
            last_move: drawn.last_move,
            lettered: drawn.lettered,
        })
    }
}
