//! Positions people put on boards, read from chess text files, to measure how well
//! [`super::from_position`] tells which side is at the bottom: PGN games (every position along the main line,
//! from the `FEN` tag when there is one), FEN/EPD lines, Scid's ECO opening file, and the
//! YAML problem collections (`.olv`) that pychess ships. `data/fetch-positions` fetches
//! free ones; nothing here is shipped with the program.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, Piece, Position, Role, Square};

use crate::class::SquareClass;
use crate::placement::Placement;

/// Why a position file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// What was read.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The file's extension names no format this reader knows.
    #[error("{path}: not a position file (.pgn, .fen, .epd, .eco or .olv)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// Nothing in it could be read as a position.
    #[error("{path}: no positions found")]
    Empty {
        /// The file or folder.
        path: PathBuf,
    },
}

/// The text formats positions are read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorpusFormat {
    /// PGN games.
    Pgn,
    /// One FEN or EPD per line (only the placement is used).
    FenLines,
    /// Scid's ECO file: `CODE "name" 1.e4 e5 ... *`.
    Eco,
    /// YAML problem collections with `algebraic: white: [Ke1, Sb1, Pe2]` entries.
    Olv,
}

impl CorpusFormat {
    /// The format a file's extension names.
    pub fn of(path: &Path) -> Option<CorpusFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "pgn" => Some(CorpusFormat::Pgn),
            "fen" | "epd" => Some(CorpusFormat::FenLines),
            "eco" => Some(CorpusFormat::Eco),
            "olv" => Some(CorpusFormat::Olv),
            _ => None,
        }
    }
}

/// The distinct positions of one file or folder.
#[derive(Clone, Debug)]
pub struct Corpus {
    /// The file or folder name.
    pub name: String,
    /// Distinct placements, in the order first met.
    pub positions: Vec<Placement>,
}

/// Reads a position file, or every position file under a folder (sorted, recursively;
/// files of other kinds are skipped). Repeated placements are kept once.
pub fn read_corpus(path: &Path) -> Result<Corpus, CorpusError> {
    let read_err = |source| CorpusError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    if fs::metadata(path).map_err(read_err)?.is_dir() {
        collect_files(path, &mut files)?;
    } else if CorpusFormat::of(path).is_some() {
        files.push(path.to_path_buf());
    } else {
        return Err(CorpusError::UnknownFormat {
            path: path.to_path_buf(),
        });
    }
    let mut seen = HashSet::new();
    let mut positions = Vec::new();
    for file in files {
        let Some(format) = CorpusFormat::of(&file) else {
            continue;
        };
        let bytes = fs::read(&file).map_err(|source| CorpusError::Read {
            path: file.clone(),
            source,
        })?;
        // Old PGN files are often Latin-1: the moves are ASCII either way.
        let text = String::from_utf8_lossy(&bytes);
        for p in positions_in(&text, format) {
            if seen.insert(p) {
                positions.push(p);
            }
        }
    }
    if positions.is_empty() {
        return Err(CorpusError::Empty {
            path: path.to_path_buf(),
        });
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    Ok(Corpus { name, positions })
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CorpusError> {
    let read_err = |source| CorpusError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(read_err)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(read_err)?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_files(&entry, out)?;
        } else if CorpusFormat::of(&entry).is_some() {
            out.push(entry);
        }
    }
    Ok(())
}

/// Every placement in a text of the given format (repeats included).
pub fn positions_in(text: &str, format: CorpusFormat) -> Vec<Placement> {
    let mut out = Vec::new();
    match format {
        CorpusFormat::Pgn => pgn_positions(text, &mut out),
        CorpusFormat::FenLines => {
            for line in text.lines() {
                if let Some(p) = line.split_whitespace().next().and_then(|f| f.parse().ok()) {
                    out.push(p);
                }
            }
        }
        CorpusFormat::Eco => pgn_positions(&eco_as_pgn(text), &mut out),
        CorpusFormat::Olv => olv_positions(text, &mut out),
    }
    out
}

/// One PGN game being followed.
#[derive(Default)]
struct Game {
    fen: Option<String>,
    /// Whether movetext has started.
    started: bool,
    /// The position, while the moves can be followed.
    position: Option<Chess>,
}

impl Game {
    fn start(&mut self, out: &mut Vec<Placement>) {
        if self.started {
            return;
        }
        self.started = true;
        self.position = match &self.fen {
            Some(text) => {
                let Ok(fen) = Fen::from_ascii(text.as_bytes()) else {
                    return;
                };
                out.push(Placement::from_board(&fen.as_setup().board));
                fen.into_position(CastlingMode::Chess960).ok()
            }
            None => {
                out.push(Placement::start());
                Some(Chess::default())
            }
        };
    }

    fn play(&mut self, token: &str, out: &mut Vec<Placement>) {
        self.start(out);
        let Some(pos) = self.position.take() else {
            return;
        };
        let san = token.trim_end_matches(['!', '?']);
        let Ok(san) = SanPlus::from_ascii(san.as_bytes()) else {
            return;
        };
        if let Ok(m) = san.san.to_move(&pos) {
            let next = pos.play(m).ok();
            if let Some(next) = &next {
                out.push(Placement::from_board(next.board()));
            }
            self.position = next;
        }
    }

    /// Ends the game (a tag after movetext, a result, the end of the text).
    fn finish(&mut self, out: &mut Vec<Placement>) {
        if !self.started && self.fen.is_some() {
            self.start(out);
        }
        *self = Game::default();
    }
}

/// Follows the main line of every game: comments, variations and NAGs are skipped, and a
/// game stops being followed at its first move that does not parse or is illegal.
fn pgn_positions(text: &str, out: &mut Vec<Placement>) {
    let mut game = Game::default();
    let mut chars = text.char_indices().peekable();
    let mut depth = 0usize; // inside variations
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '[' if depth == 0 => {
                if game.started {
                    game.finish(out);
                }
                let mut tag = String::new();
                for (_, c) in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    tag.push(c);
                }
                let tag = tag.trim();
                if let Some(value) = tag.strip_prefix("FEN") {
                    game.fen = Some(value.trim().trim_matches('"').to_string());
                }
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_whitespace() || "{}();[".contains(d) {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                if depth > 0 {
                    continue;
                }
                let token = &text[i..end];
                match token {
                    "1-0" | "0-1" | "1/2-1/2" | "*" => game.finish(out),
                    _ if token.starts_with('$') => {}
                    _ => {
                        // "12." "12..." "12.e4": a move number, possibly glued to its move.
                        let mv = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                        if token.starts_with("0-0") {
                            game.play(&token.replace('0', "O"), out);
                        } else if !mv.is_empty() {
                            game.play(mv, out);
                        }
                    }
                }
            }
        }
    }
    game.finish(out);
}

/// Scid's ECO lines as PGN movetext: each `CODE "name" moves *` entry (possibly over several
/// lines) becomes one game from the start position.
fn eco_as_pgn(text: &str) -> String {
    let body: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| [l, "\n"])
        .collect();
    let mut pgn = String::new();
    for entry in body.split('*') {
        let Some(end_of_name) = entry.rfind('"') else {
            continue;
        };
        pgn.push_str(&entry[end_of_name + 1..]);
        pgn.push_str(" *\n");
    }
    pgn
}

/// Problems of an `.olv` collection whose pieces are all orthodox (S = knight).
fn olv_positions(text: &str, out: &mut Vec<Placement>) {
    let mut current: Option<Placement> = Some(Placement::default());
    let mut any = false;
    let mut flush = |current: &mut Option<Placement>, any: &mut bool| {
        if let Some(p) = current.take().filter(|_| *any) {
            out.push(p);
        }
        *current = Some(Placement::default());
        *any = false;
    };
    for line in text.lines() {
        let t = line.trim();
        if t == "---" || t.starts_with("algebraic:") {
            flush(&mut current, &mut any);
            continue;
        }
        let (color, list) = if let Some(rest) = t.strip_prefix("white:") {
            (Some(Color::White), rest)
        } else if let Some(rest) = t.strip_prefix("black:") {
            (Some(Color::Black), rest)
        } else if t.starts_with("neutral:") {
            (None, "")
        } else {
            continue;
        };
        let Some(color) = color else {
            current = None; // neutral pieces: not an orthodox position
            continue;
        };
        let Some(p) = current.as_mut() else {
            continue;
        };
        let list = list.trim().trim_start_matches('[').trim_end_matches(']');
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match olv_piece(item) {
                Some((role, sq)) => {
                    p.set(sq, SquareClass::Piece(Piece { color, role }));
                    any = true;
                }
                None => {
                    current = None; // a fairy piece
                    break;
                }
            }
        }
    }
    flush(&mut current, &mut any);
}

fn olv_piece(item: &str) -> Option<(Role, Square)> {
    let (letter, square) = item.split_at_checked(1)?;
    let role = match letter {
        "K" => Role::King,
        "Q" => Role::Queen,
        "R" => Role::Rook,
        "B" => Role::Bishop,
        "S" => Role::Knight,
        "P" => Role::Pawn,
        _ => return None,
    };
    Some((role, square.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_main_line_from_the_start_and_from_a_fen_tag() {
        let pgn = r#"[Event "a"]
[Result "*"]

1. e4 {best by test [%cal Ge2e4]} e5 (1... c5 2. Nf3) 2. Nf3! $1 Nc6 *

[Event "b"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 2. Kf2?? 1-0

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 *
"#;
        let got: Vec<String> = positions_in(pgn, CorpusFormat::Pgn)
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(got.len(), 5 + 4 + 8, "{got:?}");
        assert_eq!(got[0], Placement::start().to_string());
        assert_eq!(
            got[4],
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
        );
        assert_eq!(got[5], "4k3/8/8/8/8/8/4P3/4K3");
        assert_eq!(got[8], "8/3k4/8/8/4P3/8/5K2/8");
        assert_eq!(
            got[16],
            "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1"
        );
    }

    #[test]
    fn an_illegal_move_stops_the_game_and_not_the_file() {
        let pgn = "1. e4 e5 2. Ke4 d6 *\n1. d4 *\n";
        let got = positions_in(pgn, CorpusFormat::Pgn);
        // start, e4, e5 | start (a repeat), d4
        assert_eq!(got.len(), 5);
        assert_eq!(
            got[4].to_string(),
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR"
        );
    }

    #[test]
    fn eco_entries_over_several_lines() {
        let eco = "# comment with * star\nA00b \"Barnes\"  1.f3 *\nB00 \"Long\"\n  1.e4 b6 *\n";
        let got = positions_in(eco, CorpusFormat::Eco);
        let last = got.last().unwrap().to_string();
        assert_eq!(last, "rnbqkbnr/p1pppppp/1p6/8/4P3/8/PPPP1PPP/RNBQKBNR");
        assert_eq!(got.len(), 2 + 3);
    }

    #[test]
    fn olv_problems_keep_orthodox_pieces_only() {
        let olv = "---\nalgebraic: \n  white: [Ke8, Sf1, Pd2]\n  black: [Kg4, Qe3]\n\
                   stipulation: \"#2\"\n---\nalgebraic: \n  white: [Ka1, Gb2]\n  black: [Kh8]\n";
        let got = positions_in(olv, CorpusFormat::Olv);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].to_string(), "4K3/8/8/8/6k1/4q3/3P4/5N2");
    }

    #[test]
    fn fen_lines_and_unknown_files() {
        let got = positions_in(
            "8/8/8/8/8/8/8/K6k w - -\nnot a fen\n",
            CorpusFormat::FenLines,
        );
        assert_eq!(got.len(), 1);
        let err = read_corpus(Path::new("Cargo.toml")).unwrap_err();
        assert!(matches!(err, CorpusError::UnknownFormat { .. }), "{err}");
    }
}
