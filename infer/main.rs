//! `infer`: check a FEN (and, as the pipeline grows, read one from a picture).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fenscan::fen::check::{Report, check_text};
use fenscan::fen::problem::Severity;

/// Exit statuses, shared by every infer command.
#[repr(u8)]
enum Exit {
    /// Everything is valid.
    Ok = 0,
    /// Problems were found (an invalid FEN).
    Problems = 1,
    /// Usage error or unreadable input.
    Usage = 2,
}

#[derive(Parser)]
#[command(
    name = "infer",
    version,
    about = "Turn a picture of a chess board into a checked FEN"
)]
struct Opts {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a FEN or a piece placement and explain every problem.
    ///
    /// A placement alone is completed with `w - - 0 1` (and the output says so).
    /// Exit status: 0 valid (warnings allowed), 1 problems found, 2 usage error.
    Check {
        /// The FEN, or only its first field (quote it: it contains spaces and `/`).
        fen: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    match run(opts) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("infer: {e:#}");
            ExitCode::from(Exit::Usage as u8)
        }
    }
}

fn run(opts: Opts) -> anyhow::Result<Exit> {
    match opts.command {
        Command::Check { fen, json } => {
            let report = check_text(&fen);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_report(&report);
            }
            Ok(if report.valid {
                Exit::Ok
            } else {
                Exit::Problems
            })
        }
    }
}

fn print_report(report: &Report) {
    match &report.fen {
        Some(fen) => println!("{fen}"),
        None => println!("could not read the FEN"),
    }
    for problem in &report.problems {
        println!("{problem}");
    }
    let count = |s| report.problems.iter().filter(|p| p.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    if report.valid {
        if warnings == 0 {
            println!("valid");
        } else {
            println!(
                "valid, with {warnings} warning{}",
                if warnings == 1 { "" } else { "s" }
            );
        }
    } else {
        println!(
            "invalid: {errors} error{}{}",
            if errors == 1 { "" } else { "s" },
            if warnings > 0 {
                format!(
                    ", {warnings} warning{}",
                    if warnings == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        );
    }
}
