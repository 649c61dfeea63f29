//! Piece sets: a folder `NAME/{wK,wQ,wR,wB,wN,wP,bK,bQ,bR,bB,bN,bP}.{svg,png}`, a diagram
//! font with its `font.json` (see [`super::font_pieces`]) or a sprite sheet with its
//! `sprite.json` (see [`super::sprite_pieces`]), rasterised on demand (SVG through resvg) and
//! cached per size.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

use super::font_pieces::{FONT_MANIFEST, load_font_glyphs};
use super::sprite_pieces::{SPRITE_MANIFEST, load_sprite_pieces};
use crate::class::SquareClass;

/// Why a piece set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PieceSetError {
    /// A piece file is missing.
    #[error("piece set {dir}: no {name}.svg or {name}.png")]
    Missing {
        /// The set's folder.
        dir: PathBuf,
        /// The piece name (`wK`, ...).
        name: &'static str,
    },
    /// A file could not be read or parsed.
    #[error("piece file {path}: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A path given as a piece set is not a folder.
    #[error("piece set {path}: {}", not_a_folder_reason(.path))]
    NotAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// A folder of sets holds no set.
    #[error(
        "{dir}: no piece sets (expected one folder per set, each with wK.svg ... bP.svg, a font.json or a sprite.json)"
    )]
    Empty {
        /// The folder.
        dir: PathBuf,
    },
}

/// Why `path` cannot be a piece set folder.
fn not_a_folder_reason(path: &Path) -> &'static str {
    if path.exists() {
        "not a folder (give the folder that holds wK.svg ... bP.svg, or a folder of such folders)"
    } else {
        "no such folder"
    }
}

#[derive(Debug)]
enum Source {
    Svg(Box<usvg::Tree>),
    Raster(Pixmap),
}

/// One loaded piece set.
#[derive(Debug)]
pub struct PieceSet {
    /// The set's name (its folder name).
    pub name: String,
    /// Sources indexed by class index - 1 (`wP` = 0 ... `bK` = 11); font sets with hatched
    /// glyphs add the 12 pieces on a dark square (12..24) and the empty dark square (24).
    sources: Vec<Source>,
    cache: Mutex<HashMap<(usize, u32), Arc<Pixmap>>>,
    /// Share of the white men's ink that is dark, measured on first use.
    white_dark_share: OnceLock<f64>,
}

/// The most cached rasters per set before the cache is emptied (bounds memory when boards of
/// many sizes are drawn).
const CACHE_LIMIT: usize = 12 * 64;

/// Below this share of dark ink the white men count as faint
/// ([`PieceSet::white_men_faint`]).
const FAINT_WHITE_DARK_SHARE: f64 = 0.01;

impl PieceSet {
    /// Loads the set in `dir` (the folder name becomes the set's name).
    pub fn load(dir: &Path) -> Result<PieceSet, PieceSetError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        if dir.join(FONT_MANIFEST).is_file() {
            let glyphs = load_font_glyphs(dir)?;
            let mut sources: Vec<Source> = glyphs.pieces.into_iter().map(Source::Raster).collect();
            if let Some((dark, empty)) = glyphs.dark {
                sources.extend(dark.into_iter().map(Source::Raster));
                sources.push(Source::Raster(empty));
            }
            return Ok(PieceSet::new(name, sources));
        }
        if dir.join(SPRITE_MANIFEST).is_file() {
            let sources = load_sprite_pieces(dir)?
                .into_iter()
                .map(Source::Raster)
                .collect();
            return Ok(PieceSet::new(name, sources));
        }
        let mut sources = Vec::with_capacity(12);
        for class in &SquareClass::ALL[1..] {
            let name = class.name();
            let svg = dir.join(format!("{name}.svg"));
            let png = dir.join(format!("{name}.png"));
            let unreadable = |path: &Path, reason: String| PieceSetError::Unreadable {
                path: path.to_path_buf(),
                reason,
            };
            let source = if svg.is_file() {
                let data = std::fs::read(&svg).map_err(|e| unreadable(&svg, e.to_string()))?;
                svg_source(&data, &svg)?
            } else if png.is_file() {
                let img = image::open(&png)
                    .map_err(|e| unreadable(&png, format!("not a readable image: {e}")))?
                    .to_rgba8();
                Source::Raster(
                    rgba_to_pixmap(&img).ok_or_else(|| unreadable(&png, "empty image".into()))?,
                )
            } else {
                return Err(PieceSetError::Missing {
                    dir: dir.to_path_buf(),
                    name,
                });
            };
            sources.push(source);
        }
        Ok(PieceSet::new(name, sources))
    }

    fn new(name: String, sources: Vec<Source>) -> PieceSet {
        PieceSet {
            name,
            sources,
            cache: Mutex::new(HashMap::new()),
            white_dark_share: OnceLock::new(),
        }
    }

    /// The project's own set, compiled into the program (so every binary has a set even
    /// away from the source tree).
    pub fn builtin() -> PieceSet {
        let sources = BUILTIN
            .iter()
            .filter_map(|(name, bytes)| svg_source(bytes, Path::new(name)).ok())
            .collect::<Vec<_>>();
        debug_assert_eq!(sources.len(), 12, "the built-in SVGs parse");
        PieceSet::new("fenscan".into(), sources)
    }

    /// Loads every set in the sub-folders of `root` (sorted by name, for determinism).
    pub fn load_all(root: &Path) -> Result<Vec<PieceSet>, PieceSetError> {
        let entries = std::fs::read_dir(root).map_err(|e| PieceSetError::Unreadable {
            path: root.to_path_buf(),
            reason: e.to_string(),
        })?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        let sets = dirs
            .iter()
            .map(|d| PieceSet::load(d))
            .collect::<Result<Vec<_>, _>>()?;
        if sets.is_empty() {
            return Err(PieceSetError::Empty {
                dir: root.to_path_buf(),
            });
        }
        Ok(sets)
    }

    /// Loads the sets named on a command line: each path is a set folder (holding wK.svg or
    /// wK.png) or a folder of sets. No paths: the project's own set.
    pub fn load_dirs(dirs: &[PathBuf]) -> Result<Vec<PieceSet>, PieceSetError> {
        if dirs.is_empty() {
            return Ok(vec![PieceSet::builtin()]);
        }
        let mut sets = Vec::new();
        for dir in dirs {
            if !dir.is_dir() {
                return Err(PieceSetError::NotAFolder { path: dir.clone() });
            }
            if is_set_dir(dir) {
                sets.push(PieceSet::load(dir)?);
            } else {
                sets.extend(PieceSet::load_all(dir)?);
            }
        }
        Ok(sets)
    }

    /// The piece for `class` (not empty) rasterised into a `size` x `size` square,
    /// aspect kept and centred.
    pub fn raster(&self, class: SquareClass, size: u32) -> Option<Arc<Pixmap>> {
        self.raster_source(class.index().checked_sub(1)?, size)
    }

    /// Whether the set can typeset a whole diagram (a diagram font with hatched-square
    /// glyphs).
    pub fn has_dark_glyphs(&self) -> bool {
        self.sources.len() == 25
    }

    /// Whether the white men have (almost) no dark ink: no outline, only light greys
    /// (scid's bauhaus, lichess's pirouetti). On a printed diagram's white squares they
    /// vanish, a board nobody could read, so such sets are not drawn on book themes.
    pub fn white_men_faint(&self) -> bool {
        self.white_dark_share() < FAINT_WHITE_DARK_SHARE
    }

    /// Of the white men's opaque pixels (rasterised at 48 px), the share darker than mid-grey.
    pub fn white_dark_share(&self) -> f64 {
        *self.white_dark_share.get_or_init(|| {
            let (mut dark, mut opaque) = (0usize, 0usize);
            for idx in 0..6 {
                let Some(p) = self.raster_source(idx, 48) else {
                    continue;
                };
                for px in p.pixels().iter().map(|px| px.demultiply()) {
                    if px.alpha() < 128 {
                        continue;
                    }
                    opaque += 1;
                    let [r, g, b] = [px.red(), px.green(), px.blue()].map(f64::from);
                    if 0.2126 * r + 0.7152 * g + 0.0722 * b < 128.0 {
                        dark += 1;
                    }
                }
            }
            if opaque == 0 {
                1.0
            } else {
                dark as f64 / opaque as f64
            }
        })
    }

    /// The font's glyph for `class` on a hatched dark square (the empty hatched square for
    /// `Empty`), filling a whole `size` x `size` square; `None` unless
    /// [`has_dark_glyphs`](Self::has_dark_glyphs).
    pub fn dark_raster(&self, class: SquareClass, size: u32) -> Option<Arc<Pixmap>> {
        if !self.has_dark_glyphs() {
            return None;
        }
        match class.index() {
            0 => self.raster_source(24, size),
            i => self.raster_source(11 + i, size),
        }
    }

    fn raster_source(&self, idx: usize, size: u32) -> Option<Arc<Pixmap>> {
        let size = size.max(1);
        let key = (idx, size);
        if let Some(p) = self.cache.lock().ok()?.get(&key) {
            return Some(p.clone());
        }
        let mut pixmap = Pixmap::new(size, size)?;
        match self.sources.get(idx)? {
            Source::Svg(tree) => {
                let s = tree.size();
                let scale = size as f32 / s.width().max(s.height());
                let dx = (size as f32 - s.width() * scale) / 2.0;
                let dy = (size as f32 - s.height() * scale) / 2.0;
                resvg::render(
                    tree,
                    Transform::from_row(scale, 0.0, 0.0, scale, dx, dy),
                    &mut pixmap.as_mut(),
                );
            }
            Source::Raster(src) => {
                let scale = size as f32 / src.width().max(src.height()) as f32;
                let dx = (size as f32 - src.width() as f32 * scale) / 2.0;
                let dy = (size as f32 - src.height() as f32 * scale) / 2.0;
                let paint = resvg::tiny_skia::PixmapPaint {
                    quality: resvg::tiny_skia::FilterQuality::Bicubic,
                    ..Default::default()
                };
                pixmap.draw_pixmap(
                    0,
                    0,
                    src.as_ref(),
                    &paint,
                    Transform::from_row(scale, 0.0, 0.0, scale, dx, dy),
                    None,
                );
            }
        }
        let pixmap = Arc::new(pixmap);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, pixmap.clone());
        }
        Some(pixmap)
    }
}

/// Reads a set's JSON manifest (`font.json`, `sprite.json`), naming the file on error.
pub(crate) fn read_manifest<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> Result<T, PieceSetError> {
    let unreadable = |reason: String| PieceSetError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| unreadable(e.to_string()))
}

/// Whether `dir` is one set (not a folder of sets).
fn is_set_dir(dir: &Path) -> bool {
    ["wK.svg", "wK.png", FONT_MANIFEST, SPRITE_MANIFEST]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// The built-in set's files, in class order wP..bK.
const BUILTIN: [(&str, &[u8]); 12] = [
    ("wP.svg", include_bytes!("../../data/pieces/fenscan/wP.svg")),
    ("wN.svg", include_bytes!("../../data/pieces/fenscan/wN.svg")),
    ("wB.svg", include_bytes!("../../data/pieces/fenscan/wB.svg")),
    ("wR.svg", include_bytes!("../../data/pieces/fenscan/wR.svg")),
    ("wQ.svg", include_bytes!("../../data/pieces/fenscan/wQ.svg")),
    ("wK.svg", include_bytes!("../../data/pieces/fenscan/wK.svg")),
    ("bP.svg", include_bytes!("../../data/pieces/fenscan/bP.svg")),
    ("bN.svg", include_bytes!("../../data/pieces/fenscan/bN.svg")),
    ("bB.svg", include_bytes!("../../data/pieces/fenscan/bB.svg")),
    ("bR.svg", include_bytes!("../../data/pieces/fenscan/bR.svg")),
    ("bQ.svg", include_bytes!("../../data/pieces/fenscan/bQ.svg")),
    ("bK.svg", include_bytes!("../../data/pieces/fenscan/bK.svg")),
];

fn svg_source(data: &[u8], path: &Path) -> Result<Source, PieceSetError> {
    let unreadable = |reason: String| PieceSetError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let tree = usvg::Tree::from_data(data, &usvg::Options::default())
        .map_err(|e| unreadable(format!("not a usable SVG: {e}")))?;
    if tree.size().width() <= 0.0 || tree.size().height() <= 0.0 {
        return Err(unreadable("the SVG has no size".into()));
    }
    Ok(Source::Svg(Box::new(tree)))
}

/// Converts straight-alpha RGBA to a premultiplied pixmap.
pub fn rgba_to_pixmap(img: &image::RgbaImage) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(img.width(), img.height())?;
    for (dst, src) in pixmap.pixels_mut().iter_mut().zip(img.pixels()) {
        let [r, g, b, a] = src.0;
        *dst = resvg::tiny_skia::ColorU8::from_rgba(r, g, b, a).premultiply();
    }
    Some(pixmap)
}

/// Where the project's own piece set lives in the source tree (`data/pieces/fenscan`).
pub fn builtin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/pieces/fenscan")
}
