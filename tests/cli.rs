//! The binaries' command lines: exit statuses, text and JSON output.

use crate::util::{TempDir, assert_exit, run_bin};

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

/// A backend that cannot run here is a clear error before anything is written (with the
/// feature, a machine without a GPU gets "no usable GPU ..." the same way).
#[cfg(not(feature = "wgpu"))]
#[test]
fn train_on_an_unavailable_backend_is_a_clear_error() {
    let tmp = TempDir::new("cli-backend");
    let out_dir = tmp.0.join("out");
    let out = run_bin(
        "train",
        &[
            "--backend",
            "wgpu",
            "--out",
            out_dir.to_str().unwrap(),
            "--pieces",
            "data/pieces/fenscan",
            "--steps",
            "1",
        ],
    );
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features wgpu"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out_dir.exists());
}

/// Square crops are cut through a board's four corners: a config that bends the board's
/// lines cannot make them, for `synth squares` or for `train`, and says why.
#[test]
fn bent_boards_are_refused_for_square_crops() {
    let tmp = TempDir::new("cli-bent-squares");
    let config = tmp.0.join("bent.json");
    std::fs::write(
        &config,
        r#"{"scene": {"lens": {"probability": 0.5, "strength": 0.1}}}"#,
    )
    .unwrap();
    let (config, out_dir) = (config.to_str().unwrap(), tmp.0.join("out"));
    let out_dir = out_dir.to_str().unwrap();
    let synth = run_bin(
        "synth",
        &[
            "squares", "--count", "1", "--config", config, "--out", out_dir,
        ],
    );
    let train_config = tmp.0.join("train.json");
    std::fs::write(
        &train_config,
        r#"{"synth": {"scene": {"curl": {"probability": 0.5, "strength": 30.0}}}}"#,
    )
    .unwrap();
    let train = run_bin(
        "train",
        &[
            "--config",
            train_config.to_str().unwrap(),
            "--out",
            out_dir,
            "--pieces",
            "data/pieces/fenscan",
            "--steps",
            "1",
        ],
    );
    for (out, effect) in [(&synth, "scene.lens"), (&train, "scene.curl")] {
        assert_ne!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(effect) && err.contains("four corners"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!std::path::Path::new(out_dir).exists());
    // Whole boards keep their labels' corners where the bend puts them: drawn.
    let boards = run_bin(
        "synth",
        &[
            "boards", "--count", "1", "--config", config, "--out", out_dir,
        ],
    );
    assert_exit(&boards, 0);
}

#[test]
fn a_piece_set_that_is_not_a_folder_is_named_with_the_reason() {
    let tmp = TempDir::new("cli-pieces");
    let out_dir = tmp.0.join("out");
    let out_dir = out_dir.to_str().unwrap();
    for (path, reason) in [
        ("no/such/set", "no such folder"),
        ("Cargo.toml", "not a folder"),
    ] {
        let out = run_bin(
            "synth",
            &["boards", "--count", "1", "--out", out_dir, "--pieces", path],
        );
        assert_exit(&out, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("piece set {path}: {reason}")),
            "{err}"
        );
        assert!(!std::path::Path::new(out_dir).join("labels.jsonl").exists());
    }
}

#[test]
fn synth_staunton_writes_sets_and_keeps_existing_ones() {
    let tmp = TempDir::new("cli-staunton");
    let out = tmp.join("sets");
    let out = out.to_str().unwrap();
    let args = ["staunton", "--out", out, "--count", "2", "--seed", "3"];
    assert_exit(&run_bin("synth", &args), 0);
    let king = tmp.join("sets/staunton-3-001/wK.svg");
    let drawn = std::fs::read(&king).unwrap();
    // Any set of the run already there (not only the first) refuses the run, and nothing
    // is touched.
    std::fs::write(&king, b"edited").unwrap();
    std::fs::remove_dir_all(tmp.join("sets/staunton-3-000")).unwrap();
    let again = run_bin(
        "synth",
        &["staunton", "--out", out, "--count", "3", "--seed", "3"],
    );
    assert_exit(&again, 2);
    assert!(String::from_utf8_lossy(&again.stderr).contains("--overwrite"));
    assert_eq!(std::fs::read(&king).unwrap(), b"edited");
    assert!(!tmp.join("sets/staunton-3-000").exists());
    assert!(!tmp.join("sets/staunton-3-002").exists());
    // --overwrite draws the same sets again.
    let args = [&args[..], &["--overwrite"]].concat();
    assert_exit(&run_bin("synth", &args), 0);
    assert_eq!(std::fs::read(&king).unwrap(), drawn);
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG whose header claims `w` x `h` pixels and holds no image data.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut v = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    v.extend_from_slice(&13u32.to_be_bytes());
    v.extend_from_slice(&ihdr);
    v.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    // A tiny (invalid) data chunk and the end chunk, so the header parses completely.
    for (kind, data) in [
        (&b"IDAT"[..], &[0x78u8, 0x9c, 0x03, 0x00][..]),
        (&b"IEND"[..], &[][..]),
    ] {
        let mut chunk = kind.to_vec();
        chunk.extend_from_slice(data);
        v.extend_from_slice(&(data.len() as u32).to_be_bytes());
        v.extend_from_slice(&chunk);
        v.extend_from_slice(&crc32(&chunk).to_be_bytes());
    }
    v
}

#[test]
fn bad_images_are_clear_errors() {
    let t = TempDir::new("badimg");
    let mut good = Vec::new();
    image::RgbImage::new(64, 64)
        .write_to(
            &mut std::io::Cursor::new(&mut good),
            image::ImageFormat::Png,
        )
        .unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.png", Vec::new(), "empty"),
        (
            "text.png",
            b"hello, this is not an image".to_vec(),
            "not a readable image",
        ),
        (
            "truncated.png",
            good[..good.len() / 2].to_vec(),
            "not a readable image",
        ),
        (
            "huge.png",
            png_header(100_000, 100_000),
            "outside the accepted size",
        ),
    ];
    for (name, bytes, msg) in cases {
        let p = t.join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = run_bin("infer", &[p.to_str().unwrap()]);
        assert_exit(&out, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let out = run_bin("infer", &[t.join("missing.png").to_str().unwrap()]);
    assert_exit(&out, 2);
    // A folder with one bad and one good file: the bad one is reported, the run goes on.
    std::fs::write(t.join("zz.png"), &good).unwrap();
    let out = run_bin("infer", &[t.0.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("huge.png"));
}

#[test]
fn quoted_glob_patterns_are_expanded() {
    let t = TempDir::new("glob");
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/samples/sample.png");
    for name in ["one.png", "two.png", "other.jpg"] {
        if name.ends_with("png") {
            std::fs::copy(&sample, t.join(name)).unwrap();
        } else {
            std::fs::write(t.join(name), b"not read").unwrap();
        }
    }
    let pattern = t.join("*.png");
    let out = run_bin("infer", &[pattern.to_str().unwrap()]);
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let fen = "rnb1kb1r/p2ppp1p/1p5n/2p3p1/2B1P3/P4P2/1PP1Q1PP/RNB1K1NR w - - 0 1";
    assert_eq!(stdout.matches(fen).count(), 2, "{stdout}");
    assert!(stdout.contains("one.png") && stdout.contains("two.png") && !stdout.contains("other"));
    let out = run_bin("infer", &[t.join("*.webp").to_str().unwrap()]);
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no file matches"));
}

#[test]
fn eval_writes_both_reports_under_a_dotted_name() {
    // A two-image set in the manifest format of ../shared/dev: the sample read right, and
    // the same picture labelled with a wrong placement (one failure to list).
    let t = TempDir::new("eval");
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/samples/sample.png");
    std::fs::copy(&sample, t.join("right.png")).unwrap();
    std::fs::copy(&sample, t.join("wrong.png")).unwrap();
    let placement = "rnb1kb1r/p2ppp1p/1p5n/2p3p1/2B1P3/P4P2/1PP1Q1PP/RNB1K1NR";
    let wrong = "rnb1kb1r/p2ppp1p/1p5n/2p3p1/2B1P3/P4P2/1PP1Q1PP/RNB1K1N1";
    std::fs::write(
        t.join("manifest.csv"),
        format!(
            "file,placement,kind,orientation\nright.png,{placement},screenshot,white-bottom\nwrong.png,{wrong},screenshot,white-bottom\n"
        ),
    )
    .unwrap();
    let report = t.join("run1.5");
    let out = run_bin(
        "infer",
        &[
            "eval",
            t.0.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_exit(&out, 0);
    let md = std::fs::read_to_string(t.join("run1.5.md")).expect("run1.5.md written");
    assert!(md.contains("| all | 2 | 0 | 50.0% | 1 | 0 |"), "{md}");
    assert!(
        md.contains("wrong.png") && md.contains("h1: empty -> wR"),
        "{md}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.join("run1.5.json")).unwrap()).unwrap();
    assert_eq!(json["failures"].as_array().map(Vec::len), Some(1), "{json}");
    assert!(!t.join("run1.md").exists());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    #[test]
    fn image_decoding_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000), prefix in 0usize..6) {
        // Start some inputs with real signatures so the decoders get past the sniffing.
        let sigs: [&[u8]; 6] = [b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"BM", b"II*\0\x08\0\0\0", b"MM\0*\0\0\0\x08"];
        let mut data = sigs[prefix].to_vec();
        data.extend(bytes);
        let _ = fenscan::io::decode_image(&data, "fuzz");
    }
}
