//! `train`: fit the square classifier (being built: see the train issue).

fn main() -> std::process::ExitCode {
    eprintln!("train: not available yet; the training command arrives with the train issue");
    std::process::ExitCode::from(2)
}
