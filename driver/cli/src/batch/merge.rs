//! `sightline batch merge`: one results file from the results files of shards.

use std::path::PathBuf;

use clap::Args;
use sightline::batch::merge;
use sightline::Result;

use crate::output::{print_json, print_out};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Results files (`--out` of each shard); for an id in several, the
    /// last file's newest line wins.
    #[arg(value_name = "RESULTS.jsonl", required = true)]
    pub inputs: Vec<PathBuf>,
    /// The merged file (replaced; may be one of the inputs).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Print `{"files","results","out"}` instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

pub fn merge_results(args: MergeArgs) -> Result<()> {
    let report = merge(&args.inputs, &args.out)?;
    for line in &report.skipped_lines {
        eprintln!("warning: skipped an unreadable line: {line}");
    }
    if args.json {
        print_json(&serde_json::json!({
            "files": report.files,
            "results": report.results,
            "out": args.out,
        }));
    } else {
        print_out(&format!(
            "merged {} result(s) from {} file(s) into {}\n",
            report.results,
            report.files,
            args.out.display()
        ));
    }
    Ok(())
}
