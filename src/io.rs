//! File helpers: atomic writes, image reading with a size limit.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename,
/// so a reader never sees a half-written file and an interrupted write loses nothing.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Encodes an RGB image as PNG bytes.
pub fn png_bytes(img: &image::RgbImage) -> image::ImageResult<Vec<u8>> {
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Png)?;
    Ok(buf.into_inner())
}

/// Encodes an RGB image as JPEG bytes at `quality`.
pub fn jpeg_bytes(img: &image::RgbImage, quality: u8) -> image::ImageResult<Vec<u8>> {
    let mut buf = Vec::new();
    img.write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
        &mut buf, quality,
    ))?;
    Ok(buf)
}

/// Largest image accepted, in pixels (width x height), checked from the header before
/// decoding so a hostile header cannot exhaust memory.
pub const MAX_PIXELS: u64 = 80_000_000;
/// Largest side accepted, in pixels.
pub const MAX_SIDE: u32 = 20_000;

/// Why an image could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The file cannot be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The bytes are not an image in a supported format (PNG, JPEG, WebP, BMP, GIF, TIFF, SVG).
    #[error("{path}: not a readable image (PNG, JPEG, WebP, BMP, GIF, TIFF or SVG): {reason}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The image is empty or too large.
    #[error(
        "{path}: {width}x{height} pixels is outside the accepted size (1 to {MAX_SIDE} px a side, at most {MAX_PIXELS} pixels)"
    )]
    Size {
        /// The file.
        path: String,
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
    },
}

/// Decodes an image from bytes (`name` is used in messages): checks the size from the header
/// first, applies the EXIF orientation of phone pictures, and flattens transparency onto
/// white (diagrams are often transparent PNGs). SVG is drawn (see [`SVG_SIDE`]).
pub fn decode_image(bytes: &[u8], name: &str) -> Result<image::RgbImage, ImageError> {
    use image::ImageDecoder;
    let format_err = |reason: String| ImageError::Format {
        path: name.to_string(),
        reason,
    };
    if bytes.is_empty() {
        return Err(format_err("the file is empty".into()));
    }
    if looks_like_svg(bytes) {
        return decode_svg(bytes).map_err(format_err);
    }
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format_err(e.to_string()))?;
    if reader.format().is_none() {
        return Err(format_err("unknown format".into()));
    }
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| format_err(e.to_string()))?;
    let (width, height) = decoder.dimensions();
    if width == 0
        || height == 0
        || width > MAX_SIDE
        || height > MAX_SIDE
        || u64::from(width) * u64::from(height) > MAX_PIXELS
    {
        return Err(ImageError::Size {
            path: name.to_string(),
            width,
            height,
        });
    }
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_PIXELS * 8);
    decoder
        .set_limits(limits)
        .map_err(|e| format_err(e.to_string()))?;
    let mut img =
        image::DynamicImage::from_decoder(decoder).map_err(|e| format_err(e.to_string()))?;
    img.apply_orientation(orientation);
    Ok(flatten_alpha(&img))
}

/// Longer side, in pixels, SVG pictures are drawn at: vector diagrams scale freely, and at
/// this size a board a sixth of the picture wide still has 40-px squares.
pub const SVG_SIDE: u32 = 2048;

/// An SVG (or gzip-compressed SVGZ) document, by its first bytes.
fn looks_like_svg(bytes: &[u8]) -> bool {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return true; // gzip: only SVGZ among the formats read here
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let t = head.trim_start_matches('\u{feff}').trim_start();
    ["<?xml", "<svg", "<!--", "<!DOCTYPE svg"]
        .iter()
        .any(|p| t.starts_with(p))
        && t.contains("<svg")
}

/// Draws an SVG picture (python-chess's `chess.svg.board`, Wikipedia's diagrams, diagram
/// editors' exports) on white, its longer side [`SVG_SIDE`] pixels. Images it embeds as
/// data URLs are drawn; it may not read other files. Filter effects are left out, and usvg
/// refuses documents of more than a million elements (nested `use` included): drawing time
/// stays bounded.
fn decode_svg(bytes: &[u8]) -> Result<image::RgbImage, String> {
    use resvg::tiny_skia::{Color, Pixmap, Transform};
    use resvg::usvg;
    use std::sync::{Arc, OnceLock};
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    let fonts = FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        for font in [dejavu::sans::regular(), dejavu::sans::bold()] {
            db.load_font_data(font.to_vec());
        }
        db.set_sans_serif_family("DejaVu Sans");
        db.set_serif_family("DejaVu Sans");
        Arc::new(db)
    });
    let mut opt = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: fonts.clone(),
        // Filter effects (blurs, shadows, morphology) are not drawn: a diagram's squares
        // and men do not need them, and one feMorphology of a large radius takes minutes at
        // 2,048 px.
        style_sheet: Some("* { filter: none !important; }".into()),
        ..usvg::Options::default()
    };
    opt.image_href_resolver.resolve_string = Box::new(|_, _| None);
    let tree = usvg::Tree::from_data(bytes, &opt).map_err(|e| format!("SVG: {e}"))?;
    let size = tree.size();
    let scale = SVG_SIDE as f32 / size.width().max(size.height());
    let side = |v: f32| ((v * scale).round() as u32).clamp(1, SVG_SIDE);
    let (w, h) = (side(size.width()), side(size.height()));
    let mut pixmap = Pixmap::new(w, h).ok_or("SVG: no picture size")?;
    pixmap.fill(Color::WHITE);
    resvg::render(
        &tree,
        Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    // Opaque on white, so the premultiplied colours are the colours.
    Ok(image::RgbImage::from_fn(w, h, |x, y| {
        let p = pixmap
            .pixel(x, y)
            .unwrap_or(resvg::tiny_skia::PremultipliedColorU8::TRANSPARENT);
        image::Rgb([p.red(), p.green(), p.blue()])
    }))
}

/// Reads an image file (see [`decode_image`]); `-` reads standard input.
pub fn open_image(path: &Path) -> Result<image::RgbImage, ImageError> {
    let name = path.display().to_string();
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(|source| {
            ImageError::Io {
                path: "<stdin>".into(),
                source,
            }
        })?;
        buf
    } else {
        let meta = std::fs::metadata(path).map_err(|source| ImageError::Io {
            path: name.clone(),
            source,
        })?;
        if meta.len() > 512 * 1024 * 1024 {
            return Err(ImageError::Format {
                path: name,
                reason: "the file is larger than 512 MiB".into(),
            });
        }
        std::fs::read(path).map_err(|source| ImageError::Io {
            path: name.clone(),
            source,
        })?
    };
    decode_image(&bytes, &name)
}

/// Composites an image with transparency onto white.
pub fn flatten_alpha(img: &image::DynamicImage) -> image::RgbImage {
    if !img.color().has_alpha() {
        return img.to_rgb8();
    }
    let rgba = img.to_rgba8();
    image::RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let a = a as u32;
        let mix = |c: u8| ((c as u32 * a + 255 * (255 - a) + 127) / 255) as u8;
        image::Rgb([mix(r), mix(g), mix(b)])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(img: &image::RgbImage, format: image::ImageFormat) -> Vec<u8> {
        let mut buf = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut buf), format)
            .unwrap();
        buf
    }

    #[test]
    fn scans_in_tiff_read_like_png() {
        let img =
            image::RgbImage::from_fn(40, 30, |x, y| image::Rgb([x as u8 * 6, y as u8 * 8, 90]));
        for format in [
            image::ImageFormat::Tiff,
            image::ImageFormat::Png,
            image::ImageFormat::Bmp,
        ] {
            let back = decode_image(&encoded(&img, format), "t").unwrap();
            assert_eq!(back, img, "{format:?}");
        }
    }

    #[test]
    fn svg_pictures_are_drawn_on_white() {
        // A 2x1 SVG: left half black, right half transparent; an external image is not read.
        let svg = br##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="10">
  <rect width="10" height="10" fill="#000"/>
  <image x="10" width="10" height="10" xlink:href="/etc/passwd"/>
</svg>"##;
        let img = decode_image(svg, "t.svg").unwrap();
        assert_eq!((img.width(), img.height()), (SVG_SIDE, SVG_SIDE / 2));
        assert_eq!(img.get_pixel(10, 10).0, [0, 0, 0]);
        assert_eq!(img.get_pixel(SVG_SIDE - 10, 10).0, [255, 255, 255]);
        let err =
            decode_image(b"<svg xmlns='http://www.w3.org/2000/svg'><rect", "bad.svg").unwrap_err();
        assert!(err.to_string().contains("SVG"), "{err}");
    }

    #[test]
    fn svg_filters_are_not_drawn() {
        // A 10x10 black square moved 20 units right by its filter; drawn without filters it
        // stays where it is. (Filters are left out for their cost: an feMorphology of radius
        // 30 here, 614 px at 2,048 px, took minutes.)
        let svg = br##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
  <defs><filter id="f" x="-1" y="-1" width="3" height="3"><feOffset dx="20"/></filter></defs>
  <rect x="45" y="45" width="10" height="10" fill="#000" filter="url(#f)"/>
</svg>"##;
        let img = decode_image(svg, "f.svg").unwrap();
        let at = |v: u32| v * SVG_SIDE / 100;
        assert_eq!(img.get_pixel(at(50), at(50)).0, [0, 0, 0]);
        assert_eq!(img.get_pixel(at(70), at(50)).0, [255, 255, 255]);
    }

    #[test]
    fn a_tiff_header_claiming_a_huge_image_is_refused_before_decoding() {
        // Little-endian TIFF: one IFD of a grey 8-bit image 100,000 px square, no pixel data.
        let mut t = b"II*\0\x08\0\0\0".to_vec();
        let (short, long) = (3u16, 4u16);
        let entries = [
            (256u16, long, 100_000u32), // width
            (257, long, 100_000),       // height
            (258, short, 8),            // bits per sample
            (259, short, 1),            // no compression
            (262, short, 1),            // black is zero
            (273, long, 8),             // strip offset
            (277, short, 1),            // samples per pixel
            (278, long, 100_000),       // rows per strip
            (279, long, 10),            // strip bytes
        ];
        t.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        for (tag, kind, value) in entries {
            t.extend_from_slice(&tag.to_le_bytes());
            t.extend_from_slice(&kind.to_le_bytes());
            t.extend_from_slice(&1u32.to_le_bytes());
            t.extend_from_slice(&value.to_le_bytes());
        }
        t.extend_from_slice(&0u32.to_le_bytes());
        let err = decode_image(&t, "huge.tif").unwrap_err();
        assert!(
            matches!(
                err,
                ImageError::Size {
                    width: 100_000,
                    height: 100_000,
                    ..
                }
            ),
            "{err}"
        );
    }
}
