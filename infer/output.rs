//! Printing results: text (FEN on stdout, warnings on stderr) or JSON.

use std::path::Path;

use anyhow::Result;
use fenscan::board_top::PictureTop;
use fenscan::fen::check::Report;
use fenscan::fen::problem::Severity;
use fenscan::orientation::OrientationSource;
use fenscan::recognize::{Recognition, RecognizeError, RecognizeOptions, Recognizer};
use serde::Serialize;

use crate::Exit;

/// What happened to one image.
#[derive(Serialize)]
pub struct Outcome {
    /// The recognition, when a board was found.
    #[serde(flatten)]
    pub recognition: Option<Recognition>,
    /// With `--all-boards`: every board found, in reading order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boards: Option<Vec<Recognition>>,
    /// Why not.
    pub error: Option<String>,
    /// No board: how close the finder came and why it stopped, for programs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_board: Option<fenscan::board::BoardNotFound>,
    #[serde(skip)]
    pub exit: Exit,
}

/// The debug pictures asked for (one image only).
#[derive(Clone, Copy, Default)]
pub struct DebugFiles<'a> {
    /// `--debug-image`: straightened board | diagram of the FEN.
    pub image: Option<&'a Path>,
    /// `--debug-crops`: the 64 crops the classifier read.
    pub crops: Option<&'a Path>,
}

/// Writes `pic` (or says it could not be drawn) to `out`, atomically.
fn write_picture(out: &Path, pic: Option<image::RgbImage>, what: &str) -> Result<(), String> {
    let pic = pic.ok_or(format!("cannot draw the {what}"))?;
    let bytes = fenscan::io::png_bytes(&pic).map_err(|e| e.to_string())?;
    fenscan::io::atomic_write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))
}

/// Reads, recognises and optionally draws the debug pictures for one image.
pub fn process(
    rec: &Recognizer,
    file: &Path,
    opts: &RecognizeOptions,
    debug: DebugFiles<'_>,
) -> Result<Outcome, String> {
    let img = fenscan::io::open_image(file).map_err(|e| e.to_string())?;
    match rec.recognize(&img, opts) {
        Ok(r) => {
            if let Some(out) = debug.image {
                let pic = fenscan::debug_image::debug_image(&img, &r);
                write_picture(out, pic, "debug image")?;
            }
            if let Some(out) = debug.crops {
                let crop = rec.classifier().crop();
                let pic = fenscan::debug_image::crop_sheet(&img, &r, crop);
                write_picture(out, pic, "crop sheet")?;
            }
            let exit = if has_errors(&r) {
                Exit::Problems
            } else {
                Exit::Ok
            };
            Ok(Outcome {
                recognition: Some(r),
                boards: None,
                error: None,
                no_board: None,
                exit,
            })
        }
        Err(e) => Ok(not_read(e)),
    }
}

/// Most boards `--all-boards` reads in one picture.
const MAX_BOARDS: usize = 16;

/// Reads and recognises every board in one image (`--all-boards`).
pub fn process_all(
    rec: &Recognizer,
    file: &Path,
    opts: &RecognizeOptions,
) -> Result<Outcome, String> {
    let img = fenscan::io::open_image(file).map_err(|e| e.to_string())?;
    match rec.recognize_all(&img, opts, MAX_BOARDS) {
        Ok(boards) => Ok(Outcome {
            exit: if boards.iter().any(has_errors) {
                Exit::Problems
            } else {
                Exit::Ok
            },
            recognition: None,
            boards: Some(boards),
            error: None,
            no_board: None,
        }),
        Err(e) => Ok(not_read(e)),
    }
}

fn has_errors(r: &Recognition) -> bool {
    r.problems.iter().any(|p| p.is_error())
}

/// No board found, or one that cannot be cut.
fn not_read(e: RecognizeError) -> Outcome {
    Outcome {
        recognition: None,
        boards: None,
        error: Some(e.to_string()),
        no_board: match &e {
            RecognizeError::NoBoard(not_found) => Some(not_found.clone()),
            RecognizeError::Cut(_) => None,
        },
        exit: Exit::NoBoard,
    }
}

/// Prints all results; returns the worst exit status.
pub fn print_results(
    results: &[(std::path::PathBuf, Result<Outcome, String>)],
    json: bool,
    many: bool,
    turn_given: bool,
) -> Result<Exit> {
    let mut worst = Exit::Ok;
    if json {
        #[derive(Serialize)]
        struct Item<'a> {
            file: String,
            #[serde(flatten)]
            outcome: Option<&'a Outcome>,
            #[serde(skip_serializing_if = "Option::is_none")]
            unreadable: Option<&'a String>,
        }
        let items: Vec<Item> = results
            .iter()
            .map(|(f, r)| Item {
                file: f.display().to_string(),
                outcome: r.as_ref().ok(),
                unreadable: r.as_ref().err(),
            })
            .collect();
        for (_, r) in results {
            worst = worst.max(r.as_ref().map(|o| o.exit).unwrap_or(Exit::Usage));
        }
        if many {
            println!("{}", serde_json::to_string_pretty(&items)?);
        } else if let Some(item) = items.first() {
            println!("{}", serde_json::to_string_pretty(item)?);
        }
        return Ok(worst);
    }
    for (file, r) in results {
        let prefix = if many {
            format!("{}: ", file.display())
        } else {
            String::new()
        };
        match r {
            Err(e) => {
                eprintln!("infer: {e}");
                worst = worst.max(Exit::Usage);
            }
            Ok(o) => {
                worst = worst.max(o.exit);
                match (&o.recognition, &o.boards) {
                    (Some(r), _) => {
                        println!("{prefix}{}", r.fen);
                        print_notes(&prefix, r, turn_given);
                    }
                    (None, Some(boards)) => {
                        for (k, r) in boards.iter().enumerate() {
                            // One board prints as without --all-boards.
                            let prefix = if boards.len() > 1 {
                                format!("{prefix}board {} of {}: ", k + 1, boards.len())
                            } else {
                                prefix.clone()
                            };
                            println!("{prefix}{}", r.fen);
                            if boards.len() > 1 {
                                let (x0, y0, x1, y1) = r.board.quad.bounds();
                                eprintln!(
                                    "{prefix}at x {:.0}..{:.0}, y {:.0}..{:.0} (pixels)",
                                    x0, x1, y0, y1
                                );
                            }
                            print_notes(&prefix, r, turn_given);
                        }
                    }
                    (None, None) => {
                        eprintln!("{prefix}{}", o.error.as_deref().unwrap_or("no board"))
                    }
                }
            }
        }
    }
    Ok(worst)
}

/// This many unsure squares on one board say more than each square alone: on 300 boards
/// in ten piece styles the model never saw, 67-93% of the boards in the three exotic styles
/// (pieces from above, cartoons, snowmen) reach it, 0-9% in the usual-looking ones and 12%
/// on the hard default mix (BENCHMARKS.md, unseen piece styles).
const MANY_UNSURE: usize = 8;

/// `turn_given`: the user named the side to move (else it is white by default).
fn print_notes(prefix: &str, r: &Recognition, turn_given: bool) {
    let o = &r.orientation;
    eprintln!(
        "{prefix}board seen from {}'s side ({:?}, {:.0}% sure); side to move, castling, en passant and clocks are not in a picture: given as `{} {} {} {} {}`",
        if o.orientation == fenscan::render::Orientation::White {
            "white"
        } else {
            "black"
        },
        o.source,
        o.confidence * 100.0,
        if r.fen.turn == shakmaty::Color::White {
            "w"
        } else {
            "b"
        },
        r.fen.castling,
        r.fen.ep_square.map(|s| s.to_string()).unwrap_or("-".into()),
        r.fen.halfmove,
        r.fen.fullmove
    );
    if o.doubtful() {
        let other = if o.orientation == fenscan::render::Orientation::White {
            "black"
        } else {
            "white"
        };
        let why = if o.source == OrientationSource::Default {
            "which side is at the bottom could not be told from the picture (white assumed)"
        } else {
            "no coordinates were read and the position only hints which side is at the bottom"
        };
        eprintln!(
            "{prefix}note: {why}; if {other} is at the bottom, read it again with `--orientation {other}`"
        );
    }
    print_last_move(prefix, r, turn_given);
    let turned = match r.picture_top {
        PictureTop::Top => None,
        PictureTop::Right => Some("turned a quarter clockwise: the board's top is at its right"),
        PictureTop::Bottom => Some("upside down"),
        PictureTop::Left => Some("turned a quarter anticlockwise: the board's top is at its left"),
    };
    if let Some(how) = turned {
        eprintln!("{prefix}the picture is {how}; read with the pieces standing upright");
    }
    if let Some(bend) = r.board.bend.as_ref().filter(|_| r.straightened) {
        eprintln!(
            "{prefix}the board's lines bend (its inner corners up to {:.2} of a square from \
             where straight lines put them): read with the bend taken out",
            bend.largest
        );
    }
    if let Some(t) = r.tones.filter(|t| t.stretched) {
        let (how, done) = if t.dim {
            ("dim", "read with them stretched and the shadows lifted")
        } else {
            ("faded", "read with them stretched")
        };
        eprintln!(
            "{prefix}the board's tones are {how} (greys {:.0} to {:.0} of 255): {done}",
            t.dark, t.light
        );
    }
    for s in &r.uncertain {
        let alt: Vec<String> = s
            .top
            .iter()
            .map(|t| format!("{} {:.0}%", t.class.describe(), t.probability * 100.0))
            .collect();
        let why = match s.top.first() {
            Some(t) if r.unlike_twins.contains(&s.square) => format!(
                " (it looks unlike the other {}s on squares of its colour)",
                t.class.describe()
            ),
            _ if r.cut_off.contains(&s.square) => {
                " (a quarter or more of it lies outside the picture)".to_string()
            }
            _ if r.hidden.contains(&s.square) => {
                " (something is drawn over it: what stands there cannot be seen)".to_string()
            }
            _ => String::new(),
        };
        eprintln!("{prefix}unsure about {}: {}{why}", s.square, alt.join(", "));
    }
    if !r.cut_off.is_empty() {
        let names: Vec<String> = r.cut_off.iter().map(|s| s.to_string()).collect();
        eprintln!(
            "{prefix}warning: the picture cuts off part of the board ({}): check those \
             squares against the board, or read a picture that shows all of it",
            names.join(", ")
        );
    }
    if !r.hidden.is_empty() {
        let names: Vec<String> = r.hidden.iter().map(|s| s.to_string()).collect();
        eprintln!(
            "{prefix}warning: {} squares are hidden by something drawn over the board (a \
             dialog, a banner?): {}; they are given as empty (but for men read surely \
             at the edge), and the chess constraints are not applied (a king may stand \
             beneath); fill them in from the game, or read a picture without it",
            names.len(),
            names.join(", ")
        );
    }
    // Squares hidden or cut off have been explained above.
    let unsure_seen = r
        .uncertain
        .iter()
        .filter(|s| !r.hidden.contains(&s.square) && !r.cut_off.contains(&s.square))
        .count();
    if unsure_seen >= MANY_UNSURE {
        eprintln!(
            "{prefix}warning: {unsure_seen} squares are unsure: the picture is hard to read \
             (small, blurred) or its pieces are drawn in a style the model has not learned; \
             compare the FEN with the picture (--debug-image) or fine-tune on this style \
             (README)"
        );
    }
    let listed = |squares: &[shakmaty::Square]| {
        squares
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !r.labels_cleared.is_empty() {
        eprintln!(
            "{prefix}read {} as empty: the coordinate label drawn there was read as a man \
             at first",
            listed(&r.labels_cleared)
        );
    }
    if !r.marks_cleared.is_empty() {
        eprintln!(
            "{prefix}read {} as empty: a mark drawn there in one colour (a letter, a sign) \
             was read as a man at first (--no-clear-marks keeps the first reading)",
            listed(&r.marks_cleared)
        );
    }
    for t in r.twins.iter().filter(|t| t.from != t.to) {
        eprintln!(
            "{prefix}read {} as {}, not {}: it looks like the {} on {} (similarity {:.2})",
            t.square,
            t.to.describe(),
            t.from.describe(),
            t.to.describe(),
            t.twin,
            t.similarity
        );
    }
    if r.constraints == fenscan::recognize::Constraints::NotAGame {
        eprintln!(
            "{prefix}the squares read surely already break the rules of a game (an editor \
             board or a piece gallery?): the unsure squares are given as read, without the \
             chess constraints"
        );
    }
    for c in &r.changes {
        eprintln!(
            "{prefix}changed {} from {} to {} ({})",
            c.square,
            c.from.describe(),
            c.to.describe(),
            c.reason
        );
    }
    for p in &r.problems {
        if p.severity != Severity::Note {
            eprintln!("{prefix}{p}");
        }
    }
}

/// What the last move the picture highlights says about the side to move, and about the
/// en-passant square when it was asked for.
fn print_last_move(prefix: &str, r: &Recognition, turn_given: bool) {
    use fenscan::class::color_name;
    use fenscan::recognize::FieldSource;
    match (r.last_move, r.turn_from) {
        (Some(m), FieldSource::LastMove) => eprintln!(
            "{prefix}the picture highlights {}'s last move {}: {} to move",
            color_name(m.mover()),
            m.uci(),
            color_name(m.to_move())
        ),
        (Some(m), _) if m.to_move() != r.fen.turn => eprintln!(
            "{prefix}note: the picture highlights {}'s last move {}, so {} is probably to move, \
             not {}{}",
            color_name(m.mover()),
            m.uci(),
            color_name(m.to_move()),
            color_name(r.fen.turn),
            if turn_given {
                ""
            } else {
                " (--to-move b, or --to-move auto to take the side from the picture)"
            }
        ),
        (Some(m), _) => eprintln!(
            "{prefix}the picture highlights {}'s last move {}",
            color_name(m.mover()),
            m.uci()
        ),
        (None, FieldSource::Default) => eprintln!(
            "{prefix}no last move is highlighted in the picture: white to move assumed \
             (--to-move b if not)"
        ),
        (None, FieldSource::Check) => eprintln!(
            "{prefix}no last move is highlighted in the picture, but the {} king is in check: \
             {} to move",
            color_name(r.fen.turn),
            color_name(r.fen.turn)
        ),
        (None, _) => {}
    }
    if let (FieldSource::LastMove, Some(ep)) = (r.ep_from, r.fen.ep_square) {
        eprintln!("{prefix}en passant on {ep}: the last move was a pawn's double step");
    }
}

/// Prints a checker report.
pub fn print_check(report: &Report) {
    match &report.fen {
        Some(fen) => println!("{fen}"),
        None => println!("could not read the FEN"),
    }
    for problem in &report.problems {
        println!("{problem}");
    }
    let count = |s| report.problems.iter().filter(|p| p.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    if report.valid {
        if warnings == 0 {
            println!("valid");
        } else {
            println!("valid, with {}", plural(warnings, "warning"));
        }
    } else if warnings > 0 {
        println!(
            "invalid: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        );
    } else {
        println!("invalid: {}", plural(errors, "error"));
    }
}
