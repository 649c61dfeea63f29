//! Piece sets from a diagram font (`font.json`) and from a sprite sheet (`sprite.json`).

use fenscan::SquareClass;
use fenscan::render::PieceSet;
use fenscan::render::pieces::PieceSetError;
use image::{Rgba, RgbaImage};

use crate::util::TempDir;

/// Unicode chess symbols in DejaVu Sans (which the `dejavu` crate embeds), in the manifest
/// order wK wQ wR wB wN wP bK bQ bR bB bN bP.
const UNICODE: &str = "♔♕♖♗♘♙♚♛♜♝♞♟";

fn font_set(dir: &TempDir, manifest: &str) -> Result<PieceSet, PieceSetError> {
    let set = dir.join("dejavu");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(set.join("DejaVuSans.ttf"), dejavu::sans::regular()).unwrap();
    std::fs::write(set.join("font.json"), manifest).unwrap();
    PieceSet::load(&set)
}

fn alpha_at(p: &resvg::tiny_skia::Pixmap, x: u32, y: u32) -> (u8, u8) {
    let c = p.pixel(x, y).unwrap().demultiply();
    (c.red(), c.alpha())
}

#[test]
fn font_glyphs_become_pieces_with_filled_insides() {
    let dir = TempDir::new("font-set");
    let set = font_set(
        &dir,
        &format!(r#"{{ "font": "DejaVuSans.ttf", "light": "{UNICODE}" }}"#),
    )
    .unwrap();
    assert!(!set.has_dark_glyphs());
    let white_king = set.raster(SquareClass::ALL[6], 64).unwrap();
    let black_king = set.raster(SquareClass::ALL[12], 64).unwrap();
    // The corner is outside the piece: transparent.
    assert_eq!(alpha_at(&white_king, 0, 0).1, 0);
    // Inside the white king's outline the paper is filled: opaque and light; the black king
    // is mostly ink there.
    let count = |p: &resvg::tiny_skia::Pixmap, light: bool| {
        (0..64 * 64)
            .filter(|i| {
                let (v, a) = alpha_at(p, i % 64, i / 64);
                a == 255 && if light { v > 200 } else { v < 60 }
            })
            .count()
    };
    assert!(
        count(&white_king, true) > 300,
        "white king has a white body"
    );
    assert!(count(&black_king, false) > count(&white_king, false));
    assert!(count(&black_king, true) < count(&white_king, true));
}

#[test]
fn font_with_hatched_glyphs_can_typeset() {
    let dir = TempDir::new("font-dark");
    // DejaVu has no hatched squares; any 12 glyphs and a filled square exercise the path.
    let set = font_set(
        &dir,
        &format!(
            r#"{{ "font": "DejaVuSans.ttf", "light": "{UNICODE}", "dark": "{UNICODE}", "empty_dark": "■" }}"#
        ),
    )
    .unwrap();
    assert!(set.has_dark_glyphs());
    let empty = set.dark_raster(SquareClass::Empty, 40).unwrap();
    let (v, a) = alpha_at(&empty, 20, 20);
    assert_eq!(
        (v, a),
        (0, 255),
        "the empty dark square is ink in the middle"
    );
    assert!(set.dark_raster(SquareClass::ALL[1], 40).is_some());
}

#[test]
fn bad_font_sets_are_named() {
    let dir = TempDir::new("font-bad");
    let short = font_set(&dir, r#"{ "font": "DejaVuSans.ttf", "light": "♔♕" }"#).unwrap_err();
    assert!(short.to_string().contains("12 characters"), "{short}");
    let missing = font_set(
        &dir,
        "{ \"font\": \"DejaVuSans.ttf\", \"light\": \"♔♕♖♗♘♙♚♛♜♝♞\u{E000}\" }",
    )
    .unwrap_err();
    assert!(missing.to_string().contains("no glyph"), "{missing}");
    let unknown = font_set(&dir, r#"{ "font": "DejaVuSans.ttf", "lite": "x" }"#).unwrap_err();
    assert!(unknown.to_string().contains("font.json"), "{unknown}");
    let set = dir.join("dejavu");
    std::fs::write(set.join("DejaVuSans.ttf"), b"not a font").unwrap();
    std::fs::write(
        set.join("font.json"),
        format!(r#"{{ "font": "DejaVuSans.ttf", "light": "{UNICODE}" }}"#),
    )
    .unwrap();
    let broken = PieceSet::load(&set).unwrap_err();
    assert!(broken.to_string().contains("DejaVuSans.ttf"), "{broken}");
}

/// A 7x2 sprite on a yellow key: each cell a square of its own grey, last column texture.
fn write_sprite(dir: &std::path::Path) {
    let cell = 10;
    let mut img = RgbaImage::from_pixel(7 * cell, 2 * cell, Rgba([255, 255, 0, 255]));
    for row in 0..2 {
        for col in 0..7 {
            let v = (row * 7 + col) as u8 * 10;
            for y in 2..8 {
                for x in 2..8 {
                    img.put_pixel(col * cell + x, row * cell + y, Rgba([v, v, v, 255]));
                }
            }
        }
    }
    std::fs::create_dir_all(dir).unwrap();
    img.save(dir.join("sheet.png")).unwrap();
}

#[test]
fn sprite_sheets_are_cut_and_keyed() {
    let dir = TempDir::new("sprite");
    let set = dir.join("sheet-set");
    write_sprite(&set);
    std::fs::write(
        set.join("sprite.json"),
        r#"{ "image": "sheet.png", "key": "top_left",
             "rows": [["wR","wN","wB","wQ","wK","wP",""], ["bR","bN","bB","bQ","bK","bP",""]] }"#,
    )
    .unwrap();
    let pieces = PieceSet::load(&set).unwrap();
    // wK is row 0, column 4: grey 40; bN is row 1, column 1: grey 80.
    let wk = pieces.raster(SquareClass::ALL[6], 10).unwrap();
    assert_eq!(alpha_at(&wk, 5, 5), (40, 255));
    assert_eq!(alpha_at(&wk, 0, 0).1, 0, "the key colour is transparent");
    let bn = pieces.raster(SquareClass::ALL[8], 10).unwrap();
    assert_eq!(alpha_at(&bn, 5, 5), (80, 255));

    std::fs::write(
        set.join("sprite.json"),
        r#"{ "image": "sheet.png", "key": "top_left", "rows": [["wR","wN","wB","wQ","wK","wP","xx"]] }"#,
    )
    .unwrap();
    let err = PieceSet::load(&set).unwrap_err().to_string();
    assert!(err.contains("\"xx\""), "{err}");
    std::fs::write(
        set.join("sprite.json"),
        r#"{ "image": "sheet.png", "key": "top_left", "rows": [["wR","wN","wB","wQ","wK","wP",""]] }"#,
    )
    .unwrap();
    let err = PieceSet::load(&set).unwrap_err().to_string();
    assert!(err.contains("no cell for bP"), "{err}");
}
