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
    // A piece on a dark square keeps its enclosed paper white and opaque, so the hatched
    // square typeset under it does not show through its body.
    let king = set.dark_raster(SquareClass::ALL[6], 64).unwrap();
    let paper = (0..64 * 64)
        .filter(|i| alpha_at(&king, i % 64, i / 64) == (255, 255))
        .count();
    assert!(
        paper > 300,
        "white king on a dark square: {paper} px of paper"
    );
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

/// Piece names in class order wP..bK, and a grey level for each (class index x 20).
fn class_greys() -> Vec<(&'static str, u8)> {
    SquareClass::ALL[1..]
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name(), (i as u8 + 1) * 20))
        .collect()
}

#[test]
fn svg_sprite_sheets_are_rendered_and_cut() {
    // A 6x2 SVG sheet of 10-unit cells; each cell holds a square of its piece's grey.
    let dir = TempDir::new("svg-sheet");
    let set = dir.join("svg-sheet");
    std::fs::create_dir_all(&set).unwrap();
    let greys = class_greys();
    let rows = [
        ["bK", "bQ", "bR", "bB", "bN", "bP"],
        ["wK", "wQ", "wR", "wB", "wN", "wP"],
    ];
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20">"#);
    for (r, row) in rows.iter().enumerate() {
        for (c, name) in row.iter().enumerate() {
            let g = greys.iter().find(|(n, _)| n == name).unwrap().1;
            svg += &format!(
                r#"<rect x="{}" y="{}" width="6" height="6" fill="rgb({g},{g},{g})"/>"#,
                c * 10 + 2,
                r * 10 + 2
            );
        }
    }
    svg += "</svg>";
    std::fs::write(set.join("sheet.svg"), svg).unwrap();
    std::fs::write(
        set.join("sprite.json"),
        r#"{ "image": "sheet.svg", "key": "none",
             "rows": [["bK","bQ","bR","bB","bN","bP"], ["wK","wQ","wR","wB","wN","wP"]] }"#,
    )
    .unwrap();
    let pieces = PieceSet::load(&set).unwrap();
    for (i, (name, grey)) in greys.iter().enumerate() {
        let p = pieces.raster(SquareClass::ALL[i + 1], 50).unwrap();
        assert_eq!(alpha_at(&p, 25, 25), (*grey, 255), "{name}");
        assert_eq!(
            alpha_at(&p, 2, 2).1,
            0,
            "{name}: the cell's margin stays clear"
        );
    }
}

#[test]
fn svg_elements_by_id_keep_their_relative_sizes() {
    // Twelve groups with ids; each holds an invisible 40x40 frame (as KDE Knights' themes
    // do) and a square of its piece's grey: 20 units tall, 10 for the pawns.
    let dir = TempDir::new("svg-ids");
    let set = dir.join("svg-ids");
    std::fs::create_dir_all(&set).unwrap();
    let greys = class_greys();
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="480" height="40">"#);
    let mut ids = Vec::new();
    for (i, (name, g)) in greys.iter().enumerate() {
        let side = if name.ends_with('P') { 10 } else { 20 };
        let x = i * 40;
        svg += &format!(
            r#"<g id="piece-{name}"><rect x="{x}" y="0" width="40" height="40" fill="none"/><rect x="{}" y="{}" width="{side}" height="{side}" fill="rgb({g},{g},{g})"/></g>"#,
            x + 20 - side / 2,
            30 - side
        );
        ids.push(format!(r#""{name}": "piece-{name}""#));
    }
    svg += "</svg>";
    std::fs::write(set.join("theme.svg"), svg).unwrap();
    std::fs::write(
        set.join("sprite.json"),
        format!(
            r#"{{ "image": "theme.svg", "ids": {{ {} }} }}"#,
            ids.join(", ")
        ),
    )
    .unwrap();
    let pieces = PieceSet::load(&set).unwrap();
    let solid_rows = |class: usize| {
        let p = pieces.raster(SquareClass::ALL[class], 110).unwrap();
        (0..110).filter(|&y| alpha_at(&p, 55, y).1 > 128).count()
    };
    // The tallest piece fills 1/1.1 of the cell; a pawn half as much, on the same base line.
    let (king, pawn) = (solid_rows(6), solid_rows(1));
    assert!((98..=102).contains(&king), "king {king} rows");
    assert!((48..=52).contains(&pawn), "pawn {pawn} rows");
    let wk = pieces.raster(SquareClass::ALL[6], 110).unwrap();
    assert_eq!(alpha_at(&wk, 55, 55).0, greys[5].1);

    std::fs::write(
        set.join("sprite.json"),
        r#"{ "image": "theme.svg", "ids": { "wK": "nothing-here" } }"#,
    )
    .unwrap();
    let err = PieceSet::load(&set).unwrap_err().to_string();
    assert!(err.contains("no element id for wP"), "{err}");
}
