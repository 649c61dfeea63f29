//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A screenshot's degradations: JPEG and colour shifts at their defaults, nothing that
/// blurs, rescales or lights the picture unevenly.
pub fn screenshot_degradations() -> fenscan::render::config::DegradeConfig {
    let off = fenscan::render::config::Effect {
        probability: 0.0,
        strength: 0.0,
    };
    fenscan::render::config::DegradeConfig {
        rescale: off,
        blur: off,
        noise: off,
        lighting: off,
        glare: off,
        moire: off,
        paper: off,
        ink: off,
        scan: off,
        halftone: off,
        ..Default::default()
    }
}

/// Path of a file under `tests/fixtures`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs one of the crate's binaries with arguments.
pub fn run_bin(bin: &str, args: &[&str]) -> Output {
    run_bin_in(bin, Path::new("."), args)
}

/// Runs one of the crate's binaries from folder `cwd`.
pub fn run_bin_in(bin: &str, cwd: &Path, args: &[&str]) -> Output {
    let exe = match bin {
        "infer" => env!("CARGO_BIN_EXE_infer"),
        "synth" => env!("CARGO_BIN_EXE_synth"),
        "train" => env!("CARGO_BIN_EXE_train"),
        other => panic!("unknown binary {other}"),
    };
    Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"))
}

/// Asserts an exit status, printing the output when it differs.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh empty directory under the system temp dir.
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "fenscan-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A page of chess annotation in `font` (one of `fenscan::render::text::fonts()`), `size`
/// px type on lines 1.2 times that apart from `top` down, on white paper: the lines of
/// glyphs a board finder must not take for squares.
pub fn text_page(font: usize, size: f32, width: u32, height: u32, top: f32) -> image::RgbImage {
    use resvg::tiny_skia::{Color, Pixmap};
    let mut pm = Pixmap::new(width, height).unwrap();
    pm.fill(Color::from_rgba8(250, 250, 248, 255));
    let paragraph = "White is solid, but Black seems to have a nice, active position. If \
        Black's c-pawn was on c6 he would not have any problems at all, but it is still on \
        c7 and that gives White the chance to claim a material imbalance: 1.Bxb7! Taking \
        this pawn does a number of useful things: it gives White endgame odds, annoying for \
        Black since the more pieces the challenged side trades, the closer to a pawn up \
        endgame White gets; it creates a hole on c6 which allows White to grab control of \
        the central light squares along the long diagonal; it places great pressure on \
        Black who now has to get something going to justify the lost pawn. 1...Kh8 Black \
        would love to take advantage of the errant bishop, but nothing works: 1...c6 \
        2.Qc4+ picks up the pawn; 1...Bg4 2.Qc4+ Kh8 3.Bc6 Qf5 4.Rd2 intending f2-f4.";
    let mut lines: Vec<String> = vec![String::new()];
    for word in paragraph.split_whitespace() {
        let line = lines.last_mut().unwrap();
        if line.len() + word.len() > (1440.0 / size) as usize {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    let fonts = fenscan::render::text::fonts();
    for (k, line) in lines.iter().enumerate() {
        let y = top + 1.2 * size * k as f32;
        fenscan::render::text::draw_text(&mut pm, &fonts[font], size, 60.0, y, [20, 20, 20], line);
    }
    image::RgbImage::from_fn(width, height, |x, y| {
        let c = pm.pixel(x, y).unwrap().demultiply();
        image::Rgb([c.red(), c.green(), c.blue()])
    })
}
