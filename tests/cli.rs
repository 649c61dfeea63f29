//! The binaries' command lines: exit statuses, text and JSON output.

use crate::util::{assert_exit, run_bin};

#[test]
fn check_valid_fen_exits_0() {
    let out = run_bin(
        "infer",
        &[
            "check",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
    );
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"));
    assert!(stdout.contains("valid"));
}

#[test]
fn check_placement_only_says_completed() {
    let out = run_bin("infer", &["check", "4k3/8/8/8/8/8/8/4K2R"]);
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("completed as `4k3/8/8/8/8/8/8/4K2R w - - 0 1`"),
        "{stdout}"
    );
    assert!(stdout.contains("castling rights `K`"), "{stdout}");
}

#[test]
fn check_invalid_fen_exits_1_and_names_the_rank() {
    let out = run_bin(
        "infer",
        &[
            "check",
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
    );
    assert_exit(&out, 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("rank 7 (`ppppppp`) covers 7 squares, not 8"),
        "{stdout}"
    );
}

#[test]
fn check_json_lists_problems() {
    let out = run_bin(
        "infer",
        &["check", "--json", "4k3/8/8/8/8/8/8/4K3 w KQ - 0 1"],
    );
    assert_exit(&out, 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(
        problems
            .iter()
            .filter(|p| p["kind"] == "castling_rights")
            .count(),
        2
    );
    assert!(problems.iter().all(|p| p["message"].is_string()));
}

#[test]
fn usage_errors_exit_2() {
    assert_exit(&run_bin("infer", &["check"]), 2);
    assert_exit(&run_bin("infer", &["--no-such-flag"]), 2);
}
