use super::*;

#[test]
fn report_paths_add_the_extensions_to_the_whole_name() {
    let pair = |md: &str, json: &str| (PathBuf::from(md), PathBuf::from(json));
    assert_eq!(
        report_paths(Path::new("out/run1.5")),
        pair("out/run1.5.md", "out/run1.5.json")
    );
    assert_eq!(report_paths(Path::new("r")), pair("r.md", "r.json"));
    assert_eq!(report_paths(Path::new("r.md")), pair("r.md", "r.json"));
    assert_eq!(
        report_paths(Path::new("a.b/r.json")),
        pair("a.b/r.md", "a.b/r.json")
    );
}

/// A found board of `wrong` squares, read straightened or not.
fn outcome(file: &str, wrong: usize, straightened: bool) -> ImageOutcome {
    let li = LabelledImage {
        file: PathBuf::from(file),
        placement: "8/8/8/8/8/8/8/8".parse().unwrap(),
        kind: "photo".into(),
        orientation: None,
        source: "book".into(),
        quad: None,
        last_move: ShownMove::Unknown,
    };
    ImageOutcome {
        predicted: Some("8/8/8/8/8/8/8/8".into()),
        wrong: (0..wrong)
            .map(|i| format!("a{}: wP -> empty", i + 1))
            .collect(),
        orientation_ok: Some(true),
        straightened,
        ..ImageOutcome::unread(&li)
    }
}

#[test]
fn boards_read_straightened_are_counted_and_named() {
    let outcomes = [
        outcome("flat.png", 0, false),
        outcome("bent.png", 0, true),
        outcome("bent-wrong.png", 2, true),
    ];
    let mut total = GroupStats::default();
    for o in &outcomes {
        total.add(o);
    }
    assert_eq!((total.straightened, total.straightened_exact), (2, 1));
    let report = EvalReport {
        total,
        by_kind: Vec::new(),
        by_source: Vec::new(),
        confusion: vec![vec![0; 13]; 13],
        failures: vec![outcomes[2].clone()],
    };
    let md = to_markdown(&report, "t");
    assert!(
        md.contains("read with the bend taken out: 2 (exact 1)"),
        "{md}"
    );
    assert!(
        md.contains("- bent-wrong.png (photo, straightened): 2 wrong"),
        "{md}"
    );
    // Nothing to say about a set without bent boards.
    assert!(
        !to_markdown(
            &EvalReport {
                total: GroupStats::default(),
                ..report
            },
            "t"
        )
        .contains("Bent boards")
    );
}
