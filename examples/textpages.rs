use fenscan::board::{FinderConfig, find};
use rayon::prelude::*;
fn main() {
    let n = fenscan::render::text::fonts().len();
    let mut jobs = Vec::new();
    for font in 0..n.min(6) {
        for size in [8.0f32, 10.0, 12.0, 14.0, 16.0, 20.0, 24.0, 28.0, 32.0, 40.0, 56.0, 72.0] {
            for (w, h) in [(1280u32, 720u32), (1920, 1080), (2560, 1440)] {
                jobs.push((font, size, w, h));
            }
        }
    }
    let found: Vec<String> = jobs
        .par_iter()
        .filter_map(|&(font, size, w, h)| {
            let page = fenscan::render::text::text_page(font, size, w, h, 40.0)?;
            let t = std::time::Instant::now();
            let r = find(&page, &FinderConfig::default());
            let ms = t.elapsed().as_millis();
            r.ok().map(|b| format!("font {font} size {size} {w}x{h}: {} seen {} covered ({ms} ms)", b.inner_corners, b.covered_corners))
        })
        .collect();
    println!("{} pages, {} taken for boards", jobs.len(), found.len());
    for f in found {
        println!("  {f}");
    }
}
