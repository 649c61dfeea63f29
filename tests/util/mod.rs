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

/// The pipeline with the shipped checkpoint (read from `checkpoints/default`, not the
/// built-in copy: the tests check the folder's files load).
pub fn shipped() -> fenscan::recognize::Recognizer {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/default");
    fenscan::recognize::Recognizer::load(&dir, fenscan::classifier::Backend::Flex)
        .expect("the shipped checkpoint loads")
}

/// A renderer drawing the project's own piece set with `cfg`.
pub fn own_set_renderer(cfg: fenscan::render::SynthConfig) -> fenscan::render::Renderer {
    let own = fenscan::render::PieceSet::load(&fenscan::render::pieces::builtin_dir()).unwrap();
    fenscan::render::Renderer::new(vec![own], cfg).unwrap()
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
