//! `sightline bench batch`: throughput (tasks per minute) of a fixed set of
//! steps-only tasks on local fixture pages, at several concurrencies of the
//! local pool, with the peak memory of each worker's browser (the RSS of its
//! process tree); then the same set through a local Selenium Grid.
//!
//! Each task opens its own item page (`tests/fixtures/batch/item.html`),
//! snapshots it, fills a field, clicks Save and waits for the page to say
//! so. Times are wall clock from the first task to the last result,
//! browser launches and recycling (the default, every 25 tasks) included.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;
use sightline::batch::{parse_tasks, Batch, BatchEvent, BatchOptions, Fleet, TaskFile};
use sightline::{Error, LaunchOptions, Result};
use sightline_testkit::{offline_switches, FixtureServer, GridError, LocalGrid};

use super::memory::MemorySampler;
use super::pages::print_report;

/// The goal: two workers give at least this times one worker's throughput (2 cores).
pub const GOAL_SPEEDUP_AT_2: f64 = 1.6;

#[derive(Debug, Clone, clap::Args)]
pub struct BenchBatchArgs {
    /// Tasks in the set.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub tasks: u32,
    /// Concurrencies of the local pool to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
    pub concurrency: Vec<usize>,
    /// Slots of the local grid (its run uses as many workers).
    #[arg(long, default_value_t = 2)]
    pub grid_slots: u32,
    /// Leave out the grid run.
    #[arg(long)]
    pub no_grid: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One measured run.
#[derive(Debug, Clone, Serialize)]
pub struct BatchRun {
    /// `local` or `grid`.
    pub fleet: &'static str,
    pub concurrency: usize,
    pub seconds: f64,
    pub tasks_per_minute: f64,
    /// Tasks that ended ok (all of them, or the figures mean little).
    pub ok: usize,
    /// Peak RSS of a worker's browser process tree, MB (local runs; shared
    /// pages counted in every process).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb_per_worker: Option<f64>,
    /// Peak PSS of the same tree, MB (shared pages split among their users).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_pss_mb_per_worker: Option<f64>,
    /// Browsers used: launched by workers (and recycles), or grid sessions.
    pub browsers: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct BatchBench {
    pub tasks: u32,
    pub runs: Vec<BatchRun>,
    /// Throughput at concurrency 2 over concurrency 1, when both ran.
    pub speedup_at_2: Option<f64>,
    pub goal_speedup_at_2: f64,
    /// Why the grid run is missing, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid_skipped: Option<String>,
}

/// The task set: steps-only tasks on the item pages of `files`.
fn task_file(files: &FixtureServer, n: u32) -> Result<TaskFile> {
    let text: String = (1..=n)
        .map(|i| {
            let name = format!("task-{i}");
            let steps = json!([
                {"tool": "snapshot"},
                {"tool": "fill", "target": "#name", "value": name},
                {"tool": "click", "target": "#save"},
                {"tool": "wait", "text": format!("Saved {name}")}
            ]);
            let url = files.url(&format!("batch/item.html?n={i}"));
            format!("{}\n", json!({"id": name, "url": url, "steps": steps}))
        })
        .collect();
    let tasks = parse_tasks(&text, &PathBuf::from(".")).map_err(Error::Batch)?;
    Ok(TaskFile {
        path: PathBuf::from("bench-batch.jsonl"),
        tasks,
    })
}

async fn measure(file: &TaskFile, fleet: Fleet, concurrency: usize) -> Result<BatchRun> {
    let out = tempfile::tempdir().map_err(|e| Error::Io(e.to_string()))?;
    let sampler = MemorySampler::default();
    let watcher = sampler.clone();
    let launched = Arc::new(AtomicUsize::new(0));
    let counter = launched.clone();
    let options = BatchOptions {
        concurrency,
        fleet: fleet.clone(),
        launch: LaunchOptions {
            extra_args: offline_switches(),
            ..LaunchOptions::default()
        },
        out: out.path().join("results.jsonl"),
        events: Some(Arc::new(move |e: &BatchEvent| {
            if let BatchEvent::BrowserStarted { pid, .. } = e {
                counter.fetch_add(1, Ordering::SeqCst);
                if let Some(pid) = pid {
                    watcher.watch(*pid);
                }
            }
        })),
        ..BatchOptions::default()
    };
    let sampling = sampler.start(Duration::from_millis(100));
    let started = Instant::now();
    let report = Batch::new(file.clone(), options)?.run().await;
    let seconds = started.elapsed().as_secs_f64();
    sampling.abort();
    let report = report?;
    let peak = sampler.max_peak_mb();
    Ok(BatchRun {
        fleet: if matches!(fleet, Fleet::Grid(_)) {
            "grid"
        } else {
            "local"
        },
        concurrency,
        seconds,
        tasks_per_minute: file.tasks.len() as f64 / seconds * 60.0,
        ok: report.summary.ok,
        peak_rss_mb_per_worker: peak.map(|p| p.0),
        peak_pss_mb_per_worker: peak.map(|p| p.1),
        browsers: launched.load(Ordering::SeqCst),
    })
}

pub async fn bench_batch(args: &BenchBatchArgs) -> Result<BatchBench> {
    let files = FixtureServer::start();
    let file = task_file(&files, args.tasks)?;
    let mut runs = Vec::new();
    for &c in &args.concurrency {
        runs.push(measure(&file, Fleet::Local, c.max(1)).await?);
    }
    let mut grid_skipped = None;
    if args.no_grid {
        grid_skipped = Some("--no-grid".to_string());
    } else {
        let slots = args.grid_slots.max(1);
        match tokio::task::spawn_blocking(move || LocalGrid::start(slots)).await {
            Ok(Ok(grid)) => runs.push(measure(&file, Fleet::Grid(grid.url()), slots as usize).await?),
            Ok(Err(GridError::Missing(why))) => grid_skipped = Some(why),
            Ok(Err(GridError::Failed(why))) => return Err(Error::Batch(format!("the local grid: {why}"))),
            Err(e) => return Err(Error::Batch(format!("the local grid: {e}"))),
        }
    }
    let at = |c: usize| runs.iter().find(|r| r.fleet == "local" && r.concurrency == c);
    let speedup_at_2 = match (at(1), at(2)) {
        (Some(one), Some(two)) => Some(two.tasks_per_minute / one.tasks_per_minute),
        _ => None,
    };
    Ok(BatchBench {
        tasks: args.tasks,
        runs,
        speedup_at_2,
        goal_speedup_at_2: GOAL_SPEEDUP_AT_2,
        grid_skipped,
    })
}

fn render(b: &BatchBench) -> String {
    let mut s = format!(
        "batch throughput: {} steps-only tasks on local fixture pages\n\
fleet    workers   time      tasks/min   ok     browsers   peak per worker (RSS / PSS)\n",
        b.tasks
    );
    for r in &b.runs {
        s.push_str(&format!(
            "{:<8} {:>7}   {:>6.1} s   {:>9.1}   {:>2}/{:<3} {:>8}   {}\n",
            r.fleet,
            r.concurrency,
            r.seconds,
            r.tasks_per_minute,
            r.ok,
            b.tasks,
            r.browsers,
            match (r.peak_rss_mb_per_worker, r.peak_pss_mb_per_worker) {
                (Some(rss), Some(pss)) => format!("{rss:.0} MB / {pss:.0} MB"),
                _ => "—".into(),
            }
        ));
    }
    if let Some(x) = b.speedup_at_2 {
        let verdict = if x >= b.goal_speedup_at_2 {
            "goal met"
        } else {
            "below the goal"
        };
        s.push_str(&format!(
            "concurrency 2 vs 1: {x:.2}× (goal ≥ {:.1}×, {verdict})\n",
            b.goal_speedup_at_2
        ));
    }
    if let Some(why) = &b.grid_skipped {
        s.push_str(&format!("grid: SKIPPED ({why})\n"));
    }
    s
}

pub async fn run(args: BenchBatchArgs) -> Result<()> {
    let report = bench_batch(&args).await?;
    print_report(&report, args.json, render);
    Ok(())
}
