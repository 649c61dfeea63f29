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
