//! The FEN checker against data-driven fixtures, round trips, and a never-panics property.

use fenscan::fen::check::check_text;
use fenscan::fen::parse::parse_fen;
use fenscan::{Fen, Placement};
use proptest::prelude::*;

use crate::util::fixture;

#[test]
fn fixture_cases() {
    let text = std::fs::read_to_string(fixture("fen_cases.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (line_no, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() && !line.contains('\t') {
            continue;
        }
        count += 1;
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "line {}: {line:?}", line_no + 1);
        let (fen, verdict, kinds, squares, message) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
        let report = check_text(fen);
        let json = serde_json::to_value(&report).unwrap();
        let problems = json["problems"].as_array().unwrap();
        let mut fail = |why: String| {
            failures.push(format!("line {}: `{fen}`: {why}\n{report:#?}", line_no + 1))
        };
        if report.valid != (verdict == "valid") {
            fail(format!("expected {verdict}"));
            continue;
        }
        if kinds == "-" {
            if let Some(p) = report
                .problems
                .iter()
                .find(|p| p.severity != fenscan::fen::problem::Severity::Note)
            {
                fail(format!("expected no problems, got {p}"));
            }
            continue;
        }
        let kinds: Vec<&str> = kinds.split(',').collect();
        for kind in &kinds {
            if !problems.iter().any(|p| p["kind"] == *kind) {
                fail(format!("missing problem kind {kind}"));
            }
        }
        if let Some(first) = problems.iter().find(|p| p["kind"] == kinds[0]) {
            if squares != "-" {
                for sq in squares.split(',') {
                    if !first["squares"].as_array().unwrap().iter().any(|s| s == sq) {
                        fail(format!("problem {} does not name square {sq}", kinds[0]));
                    }
                }
            }
            let all_text: String = problems
                .iter()
                .map(|p| format!("{} {}", p["message"], p["suggestion"]))
                .collect();
            if message != "-" && !all_text.contains(message) {
                fail(format!("no message contains {message:?}"));
            }
        }
    }
    assert!(count >= 40, "only {count} cases read");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fen_round_trips() {
    for s in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 4 5",
        "8/8/8/4k3/8/8/8/4K3 b - - 99 120",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    ] {
        let fen: Fen = s.parse().unwrap();
        assert_eq!(fen.to_string(), s);
        let placement: Placement = s.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(placement, fen.placement);
        assert_eq!(placement.to_string(), s.split(' ').next().unwrap());
    }
}

#[test]
fn partial_fen_is_completed() {
    let input = parse_fen("4k3/8/8/8/8/8/8/4K3 b").unwrap();
    assert_eq!(input.fen.to_string(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(input.completed.len(), 4);
}

fn mutate(s: &str, ops: &[(u8, usize, char)]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for &(op, pos, ch) in ops {
        let i = if chars.is_empty() {
            0
        } else {
            pos % (chars.len() + 1)
        };
        match op % 3 {
            0 => chars.insert(i, ch),
            1 if i < chars.len() => {
                chars.remove(i);
            }
            _ if i < chars.len() => chars[i] = ch,
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_random_text(s in "\\PC{0,100}") {
        let _ = check_text(&s);
    }

    #[test]
    fn never_panics_on_fen_like_text(s in "[KQRBNPkqrbnp0-9/ wb\\-a-h]{0,90}") {
        let report = check_text(&s);
        if let Some(fen) = report.fen {
            let again: Fen = fen.to_string().parse().unwrap();
            prop_assert_eq!(again, fen);
        }
    }

    #[test]
    fn never_panics_on_mutated_fens(
        base in prop::sample::select(vec![
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 4 5",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        ]),
        ops in prop::collection::vec((0u8..3, 0usize..100, prop::sample::select(
            "KQRBNPkqrbnp012345678/ -wbabcdefgh9x".chars().collect::<Vec<_>>())), 1..6),
    ) {
        let s = mutate(base, &ops);
        let report = check_text(&s);
        if let Some(fen) = report.fen {
            let again: Fen = fen.to_string().parse().unwrap();
            prop_assert_eq!(again, fen);
        }
    }
}

#[test]
fn in_check_names_the_side_whose_king_is_attacked() {
    use fenscan::fen::check::in_check;
    use shakmaty::Color;
    let p = |s: &str| s.parse::<Placement>().unwrap();
    // Scholar's mate: black is in check (mated), white is not.
    let mate = p("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR");
    assert_eq!(in_check(&mate, Color::Black), Some(true));
    assert_eq!(in_check(&mate, Color::White), Some(false));
    // A king missing or doubled: no answer.
    assert_eq!(in_check(&p("8/8/8/8/8/8/8/4K3"), Color::White), None);
    assert_eq!(in_check(&p("k7/8/8/8/8/8/8/K3K3"), Color::Black), None);
}
