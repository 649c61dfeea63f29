//! The evaluation report as markdown: the summary table by group, board corners, unsure
//! squares, the last move, the confusion matrix and every failing file.

use super::{EvalReport, GroupStats};
use crate::class::SquareClass;

/// The report as markdown.
pub fn to_markdown(r: &EvalReport, title: &str) -> String {
    let row = |name: &str, g: &GroupStats| {
        format!(
            "| {name} | {} | {} | {:.1}% | {} | {} | {:.2}% | {} |\n",
            g.images,
            g.images - g.found,
            g.exact_rate() * 100.0,
            g.one_wrong,
            g.two_plus_wrong,
            g.square_accuracy() * 100.0,
            if g.orientation_checked > 0 {
                format!("{}/{}", g.orientation_right, g.orientation_checked)
            } else {
                "-".into()
            }
        )
    };
    let mut md = format!(
        "# {title}\n\n| group | images | no board | exact | 1 wrong | 2+ wrong | squares right | orientation |\n|---|---|---|---|---|---|---|---|\n"
    );
    md += &row("all", &r.total);
    for (k, g) in &r.by_kind {
        md += &row(&format!("kind: {k}"), g);
    }
    for (k, g) in &r.by_source {
        md += &row(&format!("source: {k}"), g);
    }
    if let (Some(median), Some(p99)) = (
        r.total.corner_error_quantile(0.5),
        r.total.corner_error_quantile(0.99),
    ) {
        let known = r.total.images;
        md += &format!(
            "\n## Board corners\n\nCorner error (largest of the four, share of the board side) over {} found boards: median {:.2}%, 99th percentile {:.2}%, largest {:.2}%. Found with every corner within 2% of the side: {} of {known} ({:.1}%).\n",
            r.total.corner_errors.len(),
            median * 100.0,
            p99 * 100.0,
            r.total.corner_error_quantile(1.0).unwrap_or(0.0) * 100.0,
            r.total.found_within(0.02),
            r.total.found_within(0.02) as f64 * 100.0 / known.max(1) as f64,
        );
    }
    let t = &r.total;
    if t.straightened > 0 {
        md += &format!(
            "\n## Bent boards\n\nBoards whose lines bend, read with the bend taken out: {} (exact {}).\n",
            t.straightened, t.straightened_exact,
        );
    }
    let wrong = t.squares - t.squares_right;
    md += &format!(
        "\n## Unsure squares\n\nSquares reported as unsure: {} ({:.1} a board). Wrong squares among them: {} of {wrong} ({:.1}%). Boards with mistakes that were all reported as unsure: {} of {}.\n",
        t.unsure,
        t.unsure as f64 / t.found.max(1) as f64,
        t.wrong_unsure,
        t.wrong_unsure as f64 * 100.0 / wrong.max(1) as f64,
        t.all_errors_flagged,
        t.one_wrong + t.two_plus_wrong,
    );
    md += &format!(
        "Squares found empty once their coordinate labels were painted out: {} (wrong {}).\n",
        t.labels_cleared, t.wrong_labels_cleared,
    );
    md += &format!(
        "Squares found empty once a coloured mark over them was painted out: {} (wrong {}).\n",
        t.marks_cleared, t.wrong_marks_cleared,
    );
    if let Some(moves) = t.moves.markdown() {
        md += &moves;
    }
    md += "\n## Confusion (rows: truth, columns: predicted)\n\n|  |";
    for c in SquareClass::ALL {
        md += &format!(" {} |", c.name());
    }
    md += "\n|---|";
    md += &"---|".repeat(13);
    md += "\n";
    for (t, row) in r.confusion.iter().enumerate() {
        md += &format!("| {} |", SquareClass::ALL[t].name());
        for v in row {
            md += &format!(" {v} |");
        }
        md += "\n";
    }
    md += "\n## Failures\n\n";
    for f in &r.failures {
        match &f.error {
            Some(e) => md += &format!("- {} ({}): {e}\n", f.file, f.kind),
            None => {
                md += &format!(
                    "- {} ({}{}): {} wrong: {}\n",
                    f.file,
                    f.kind,
                    if f.straightened { ", straightened" } else { "" },
                    f.wrong.len(),
                    f.wrong.join(", ")
                )
            }
        }
    }
    md
}
