//! The whole pipeline, image to checked FEN, with every intermediate kept for `--json`,
//! `--debug-image` and `eval`.

use std::path::Path;
use std::time::Instant;

use image::RgbImage;
use shakmaty::Square;

use crate::board::{FoundBoard, find, find_all, reading_order, unbent};
use crate::board_top::{self, Reading, picture_top};
use crate::class::SquareClass;
use crate::classifier::{Backend, CheckpointError, Classifier, top_probability};
use crate::clear_labels;
use crate::clear_marks;
use crate::coordinates::read_labels;
use crate::decode::{argmax, clearly_not_a_game, decode_game, sure_placement};
use crate::fen::check::check;

use crate::hidden::{self};
use crate::last_move::{self};
use crate::levels::{self};
use crate::lookalike::{self};
use crate::orientation::{OrientationDecision, OrientationSource, from_reading};
use crate::placement::square_at;
use crate::quad::Quad;
use crate::relook::{self};
use crate::render::Orientation;
pub use crate::square_readings::{Scored, SquareReading, TwinReading};
use crate::squares::cut;

mod fields;
mod options;
mod recognition;
pub use fields::{CastlingChoice, EpChoice, FenFields, FieldSource, TurnChoice};
pub use options::RecognizeOptions;
pub use recognition::{Constraints, Recognition, RecognizeError};

/// A loaded model plus the pipeline.
pub struct Recognizer {
    classifier: Classifier,
}

impl Recognizer {
    /// Loads the checkpoint in `dir`.
    pub fn load(dir: &Path, backend: Backend) -> Result<Recognizer, CheckpointError> {
        Ok(Recognizer {
            classifier: Classifier::load(dir, backend)?,
        })
    }

    /// Wraps a classifier.
    pub fn new(classifier: Classifier) -> Recognizer {
        Recognizer { classifier }
    }

    /// The classifier this pipeline runs.
    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Runs the whole pipeline on one image.
    pub fn recognize(
        &self,
        img: &RgbImage,
        opts: &RecognizeOptions,
    ) -> Result<Recognition, RecognizeError> {
        let t0 = Instant::now();
        let board = find(img, &opts.finder)?;
        self.read_found(img, board, opts, t0.elapsed().as_secs_f64() * 1000.0)
    }

    /// Runs the whole pipeline on every board in the image (at most `max_boards`), in
    /// reading order: rows top to bottom, each row left to right (see
    /// [`crate::board::find_all`]). The board [`Recognizer::recognize`] would read is always
    /// kept; a further one only when fewer than a quarter of its squares are unsure (text
    /// and other patterns the finder takes for boards read as a jumble of unsure pieces).
    /// The error is the finder's when there is no board.
    pub fn recognize_all(
        &self,
        img: &RgbImage,
        opts: &RecognizeOptions,
        max_boards: usize,
    ) -> Result<Vec<Recognition>, RecognizeError> {
        let t0 = Instant::now();
        let boards = find_all(img, &opts.finder, max_boards)?;
        // The finder's time is shared out over the boards it found.
        let find_ms = t0.elapsed().as_secs_f64() * 1000.0 / boards.len().max(1) as f64;
        let mut read = Vec::new();
        for (k, board) in boards.into_iter().enumerate() {
            match self.read_found(img, board, opts, find_ms) {
                Ok(r) if k == 0 || r.uncertain.len() < FURTHER_MAX_UNSURE => read.push(r),
                // A further board that cannot be cut is left out, as an unreadable one is.
                Err(e) if k == 0 => return Err(e),
                _ => {}
            }
        }
        let quads: Vec<Quad> = read.iter().map(|r| r.board.quad).collect();
        let mut slots: Vec<Option<Recognition>> = read.into_iter().map(Some).collect();
        Ok(reading_order(&quads)
            .into_iter()
            .filter_map(|k| slots[k].take())
            .collect())
    }

    /// The pipeline after the finder: cut, classify, orient, decode and check `board`.
    fn read_found(
        &self,
        img: &RgbImage,
        mut board: FoundBoard,
        opts: &RecognizeOptions,
        find_ms: f64,
    ) -> Result<Recognition, RecognizeError> {
        let t1 = Instant::now();
        // A board whose lines bend (see [`crate::board::Bend`]) is read from a copy of the
        // picture with the bend taken out: every step after this one then sees a flat
        // board, and its outline is given back in the picture's pixels at the end. (The
        // classifier's first look is no judge between the two: squares cut half off their
        // men look as sure as whole ones, and the resampled copy is a little softer.)
        let straight = board
            .bend
            .as_ref()
            .filter(|_| opts.straighten)
            .and_then(|bend| unbent(img, bend, &board.quad));
        let straight_outline = straight.as_ref().map(|(_, outline)| *outline);
        let img = match &straight {
            Some((straight, outline)) => {
                board.quad = *outline;
                straight
            }
            None => img,
        };
        let crops = cut(img, &board.quad, self.classifier.crop())?;
        let t2 = Instant::now();
        // The finder only knows the board's geometry; the pieces tell which edge is its top.
        // A reading begins with the first model's own look (its sureness is the glance) and
        // is finished by the second model and the board context.
        let look = |crops: &[RgbImage]| {
            let own = self.classifier.first_reading(crops);
            let glance = board_top::sureness(&own.probs);
            (own, glance)
        };
        let finish = |quad: &Quad, crops: Vec<RgbImage>, (own, glance)| Reading {
            quad: *quad,
            probs: self.classifier.finish_board(&crops, own),
            crops,
            glance,
        };
        let first_look = look(&crops);
        let first = finish(&board.quad, crops, first_look);
        let settled = board_top::settle_top(first, opts.uncertain_below, |quad, glance_bar| {
            let crops = cut(img, quad, self.classifier.crop())?;
            let quick = look(&crops);
            if glance_bar.is_some_and(|bar| quick.1 <= bar) {
                return Ok::<_, RecognizeError>(None);
            }
            Ok(Some(finish(quad, crops, quick)))
        })?;
        board.quad = settled.quad;
        let (mut image_probs, mut crops) = (settled.probs, settled.crops);
        // A faded picture is also read with its tones stretched; the surer reading is kept.
        let stretched_img;
        let mut img = img;
        let mut tones = None;
        if let Some(below) = opts.stretch_faded_below {
            let read = |candidate: &RgbImage| {
                let crops = cut(candidate, &board.quad, self.classifier.crop())?;
                Ok::<_, RecognizeError>((self.classifier.read_board(&crops), crops))
            };
            if let Some((measured, surer)) =
                levels::settle_tones(img, &board.quad, below, &image_probs, read)?
            {
                tones = Some(measured);
                if let Some((candidate, probs, stretched_crops)) = surer {
                    stretched_img = candidate;
                    img = &stretched_img;
                    (image_probs, crops) = (probs, stretched_crops);
                }
            }
        }
        let relooked = match &opts.relook {
            Some(cfg) => relook::apply(&self.classifier, img, &board.quad, &mut image_probs, cfg)?,
            None => Vec::new(),
        };
        let found_twins = match &opts.lookalike {
            Some(cfg) => lookalike::apply(
                &crops,
                self.classifier.crop().context,
                &mut image_probs,
                cfg,
            ),
            None => Vec::new(),
        };
        let t3 = Instant::now();
        // The labels tell the orientation, and where they stand on the board (read for that
        // also when the user gives the orientation).
        let labels = (opts.orientation.is_none() || opts.clear_labels.is_some())
            .then(|| read_labels(img, &board.quad))
            .flatten();
        let labels_cleared = match (&labels, &opts.clear_labels) {
            (Some(labels), Some(cfg)) => clear_labels::apply(
                &self.classifier,
                &crops,
                &labels.boxes,
                &mut image_probs,
                cfg,
            ),
            _ => Vec::new(),
        };
        let marks_cleared = match &opts.clear_marks {
            Some(cfg) => clear_marks::apply(&crops, self.classifier.crop(), &mut image_probs, cfg),
            None => Vec::new(),
        };
        let mut as_read = [[0f32; 13]; 64];
        for (i, p) in image_probs.iter().enumerate().take(64) {
            as_read[i] = *p;
        }
        let orientation = match opts.orientation {
            Some(o) => OrientationDecision {
                orientation: o,
                source: OrientationSource::User,
                confidence: 1.0,
            },
            None => match labels.map(|l| l.reading) {
                Some(read) => OrientationDecision {
                    orientation: read.orientation,
                    source: OrientationSource::Coordinates,
                    // Each agreeing label beyond the disagreeing ones halves the doubt.
                    confidence: 1.0
                        - 0.5f32.powi((read.agreeing - read.disagreeing).min(30) as i32 + 1),
                },
                None => from_reading(
                    &argmax(&as_read),
                    &sure_placement(&as_read, opts.decode.sure),
                ),
            },
        };
        // A highlighted pawn's step (castling, a promotion) goes one way only: it settles
        // an orientation the position alone chose.
        let image_grounds = last_move::grounds(&crops, self.classifier.crop().context);
        let orientation = match orientation.source {
            OrientationSource::Position | OrientationSource::Default => {
                match last_move::orientation_from_move(&image_grounds, &argmax(&as_read)) {
                    Some(o) => OrientationDecision {
                        orientation: o,
                        source: OrientationSource::LastMove,
                        confidence: MOVE_ORIENTATION_CONFIDENCE,
                    },
                    None => orientation,
                }
            }
            _ => orientation,
        };
        // True squares in reading order a8..h1.
        let mut probs = [[0f32; 13]; 64];
        for (i, row) in probs.iter_mut().enumerate() {
            *row = match orientation.orientation {
                Orientation::White => as_read[i],
                Orientation::Black => as_read[63 - i],
            };
        }
        // Image reading order to true squares.
        let true_square = |i: usize| match orientation.orientation {
            Orientation::White => square_at(i),
            Orientation::Black => square_at(63 - i),
        };
        let relooked = relooked.iter().filter_map(|&i| true_square(i)).collect();
        let labels_cleared = labels_cleared
            .iter()
            .filter_map(|&i| true_square(i))
            .collect();
        let marks_cleared = marks_cleared
            .iter()
            .filter_map(|&i| true_square(i))
            .collect();
        let twins = found_twins
            .iter()
            .filter_map(|t| {
                Some(TwinReading {
                    square: true_square(t.index)?,
                    twin: true_square(t.twin)?,
                    similarity: t.similarity,
                    from: t.from,
                    to: t.to,
                })
            })
            .collect();
        // Squares a quarter or more outside the picture: whatever they read is a guess.
        let shares = crate::squares::outside_shares(&board.quad, img.width(), img.height());
        let cut_off: Vec<Square> = (0..64)
            .filter(|&i| shares[i] >= CUT_OFF_SHARE)
            .filter_map(true_square)
            .collect();
        let hidden: Vec<Square> = match &opts.hidden {
            Some(cfg) => {
                let context = self.classifier.crop().context;
                hidden::find(&crops, context, &image_grounds, &image_probs, cfg)
            }
            None => Vec::new(),
        }
        .into_iter()
        .filter_map(true_square)
        .filter(|s| !cut_off.contains(s))
        .collect();
        let constraints = if !opts.constraints {
            Constraints::Off
        } else if clearly_not_a_game(&probs, &opts.decode) {
            Constraints::NotAGame
        } else if !hidden.is_empty() {
            Constraints::PartlyHidden
        } else {
            Constraints::Applied
        };
        let (mut placement, changes) = if constraints == Constraints::Applied {
            decode_game(&probs, &opts.decode)
        } else {
            (argmax(&probs), Vec::new())
        };
        // What a hidden square reads as is a guess at a dialog's text and buttons: it is
        // given as empty, unless a man is read there surely (one the panel's edge leaves
        // in view).
        if let Some(cfg) = &opts.hidden {
            for &s in &hidden {
                let i = crate::placement::reading_index(s);
                if top_probability(&probs[i]) < cfg.seen_man {
                    placement.0[i] = SquareClass::Empty;
                }
            }
        }
        let squares: Vec<SquareReading> = probs
            .iter()
            .enumerate()
            .filter_map(|(i, row)| {
                let mut order: Vec<usize> = (0..13).collect();
                order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
                let top = order
                    .iter()
                    .take(3)
                    .map(|&c| Scored {
                        class: SquareClass::from_index(c).unwrap_or_default(),
                        probability: row[c],
                    })
                    .collect();
                Some(SquareReading {
                    square: square_at(i)?,
                    top,
                })
            })
            .collect();
        let unlike_twins: Vec<Square> = match opts.unlike_twins_margin {
            Some(margin) => lookalike::unlike_twins(
                &crops,
                self.classifier.crop().context,
                &image_probs,
                opts.uncertain_below,
                margin,
            )
            .into_iter()
            .filter_map(true_square)
            .collect(),
            None => Vec::new(),
        };
        let uncertain = squares
            .iter()
            .filter(|s| {
                unlike_twins.contains(&s.square)
                    || cut_off.contains(&s.square)
                    || hidden.contains(&s.square)
                    || s.top
                        .first()
                        .is_none_or(|t| t.probability < opts.uncertain_below)
            })
            .cloned()
            .collect();
        // The grounds in true squares' order, as the placement.
        let grounds: Vec<last_move::Ground> = (0..image_grounds.len().min(64))
            .map(|i| match orientation.orientation {
                Orientation::White => image_grounds[i],
                Orientation::Black => image_grounds[63 - i],
            })
            .collect();
        let last_move = last_move::find(&grounds, &placement);
        let (fen, turn_from, ep_from) = opts.fields.fen(placement, last_move);
        let problems = check(&fen);
        let t4 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        if let (Some(outline), Some(bend)) = (straight_outline, &board.bend) {
            // The settled outline relabels the straight one's corners (quarter turns); they
            // are given where the bend puts them in the picture.
            let corners = bend.corners();
            board.quad = Quad(board.quad.0.map(|p| {
                (0..4)
                    .find(|&k| outline.0[k] == p)
                    .map_or(p, |k| corners.0[k])
            }));
        }
        Ok(Recognition {
            lichess_url: fen.lichess_url(),
            straightened: straight_outline.is_some(),
            fen,
            placement,
            picture_top: picture_top(&board.quad),
            board,
            orientation,
            squares,
            uncertain,
            unlike_twins,
            hidden,
            cut_off,
            relooked,
            labels_cleared,
            marks_cleared,
            tones,
            twins,
            last_move,
            turn_from,
            ep_from,
            changes,
            constraints,
            problems,
            timings_ms: [find_ms, ms(t1, t2), ms(t2, t3), ms(t3, t4)],
        })
    }
}

/// How sure an orientation from the highlighted last move is: a pawn stepping backwards
/// is not a move, but the highlight may be two marked squares that only look like one.
const MOVE_ORIENTATION_CONFIDENCE: f32 = 0.95;

/// A board after the first one found in a picture is kept only with fewer unsure squares.
const FURTHER_MAX_UNSURE: usize = 16;
/// Share of a square outside the picture from which it is reported as cut off (training
/// crops reach at most 0.16 of an edge square outside: synth crops up to 2% of the board
/// inside its edge).
const CUT_OFF_SHARE: f32 = 0.25;
