//! Memory of browser process trees, sampled while a benchmark runs: a
//! browser and every process below it (zygotes, renderers, GPU and network
//! services), summed. RSS counts the pages Chromium's processes share (the
//! binary, fonts, shared memory) once in each of them, which makes a tree
//! look three to four times its size; PSS splits each shared page among
//! the processes that map it, so trees' PSS add up to what they really take.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Linux's page size on the machines this runs on (x86-64, arm64 defaults).
const PAGE_BYTES: u64 = 4096;

/// Resident memory of a process or a tree, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Resident {
    pub rss: u64,
    pub pss: u64,
}

/// Parent and memory of every live process.
fn processes() -> HashMap<u32, (u32, Resident)> {
    let mut out = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        let statm = std::fs::read_to_string(entry.path().join("statm")).unwrap_or_default();
        let pages: u64 = statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        out.insert(
            pid,
            (
                ppid,
                Resident {
                    rss: pages * PAGE_BYTES,
                    pss: 0,
                },
            ),
        );
    }
    out
}

/// PSS of one process (`/proc/PID/smaps_rollup`, in kB there), in bytes.
fn pss(pid: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Memory of `root` and all its descendants.
fn tree(all: &HashMap<u32, (u32, Resident)>, root: u32) -> Resident {
    let mut total = Resident::default();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        if let Some((_, r)) = all.get(&pid) {
            total.rss += r.rss;
            total.pss += if r.pss > 0 { r.pss } else { pss(pid) };
        }
        stack.extend(
            all.iter()
                .filter(|(_, (ppid, _))| *ppid == pid)
                .map(|(child, _)| *child),
        );
    }
    total
}

/// Memory of one process (RSS and PSS), now.
pub fn of_process(pid: u32) -> Resident {
    let rss = processes().get(&pid).map_or(0, |(_, r)| r.rss);
    Resident { rss, pss: pss(pid) }
}

/// Memory of `root` and all its descendants, now.
pub fn of_tree(root: u32) -> Resident {
    tree(&processes(), root)
}

/// Peak tree memory per browser, from samples taken every `every`.
#[derive(Clone, Default)]
pub struct MemorySampler {
    /// Browser pids to watch, and the peaks seen for each.
    peaks: Arc<Mutex<HashMap<u32, Resident>>>,
}

impl MemorySampler {
    /// Starts watching a browser.
    pub fn watch(&self, pid: u32) {
        self.peaks.lock().unwrap().entry(pid).or_default();
    }

    /// Samples until the returned handle is aborted.
    pub fn start(&self, every: Duration) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                let pids: Vec<u32> = me.peaks.lock().unwrap().keys().copied().collect();
                if !pids.is_empty() {
                    let sizes = tokio::task::spawn_blocking(move || {
                        let all = processes();
                        pids.into_iter()
                            .filter(|p| all.contains_key(p))
                            .map(|p| (p, tree(&all, p)))
                            .collect::<Vec<_>>()
                    })
                    .await
                    .unwrap_or_default();
                    let mut peaks = me.peaks.lock().unwrap();
                    for (pid, size) in sizes {
                        let peak = peaks.entry(pid).or_default();
                        peak.rss = peak.rss.max(size.rss);
                        peak.pss = peak.pss.max(size.pss);
                    }
                }
                tokio::time::sleep(every).await;
            }
        })
    }

    /// The largest peak of any browser seen so far, in MB (RSS, PSS).
    pub fn max_peak_mb(&self) -> Option<(f64, f64)> {
        let peaks = self.peaks.lock().unwrap();
        let rss = peaks.values().map(|r| r.rss).max().filter(|b| *b > 0)?;
        let pss = peaks.values().map(|r| r.pss).max().unwrap_or(0);
        Some((rss as f64 / 1e6, pss as f64 / 1e6))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_sums_its_descendants() {
        let r = |rss| Resident { rss, pss: rss / 2 };
        let all: HashMap<u32, (u32, Resident)> =
            [(1, (0, r(6))), (2, (1, r(10))), (3, (2, r(20))), (4, (0, r(40)))].into();
        assert_eq!(tree(&all, 1), Resident { rss: 36, pss: 18 });
        assert_eq!(tree(&all, 4).rss, 40);
        // This process is alive and resident.
        let me = tree(&processes(), std::process::id());
        assert!(me.rss > 0 && me.pss > 0, "{me:?}");
    }
}
