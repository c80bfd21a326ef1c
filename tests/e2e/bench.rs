//! `sightline bench snapshot`, `bench cua` and `bench mcp-sessions`: they run on local pages and report sane figures.

use crate::support::*;

#[test]
fn bench_snapshot_reports_medians_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = fixtures_dir();
    for f in ["short.html", "refs.html"] {
        std::fs::copy(fixtures.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not a page").unwrap();
    let out = run_cli(&[
        "bench",
        "snapshot",
        dir.path().to_str().unwrap(),
        "--runs",
        "2",
        "--json",
    ]);
    out.assert_success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
    assert_eq!(v["mode"], "full");
    assert_eq!(v["runs"], 2);
    let pages = v["pages"].as_array().unwrap();
    let names: Vec<&str> = pages.iter().map(|p| p["page"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["refs.html", "short.html"],
        "directories expand to their .html files, sorted"
    );
    for p in pages {
        assert!(p.get("error").is_none(), "{p}");
        assert!(p["refs"].as_u64().unwrap() > 0, "{p}");
        assert!(p["chars"].as_u64().unwrap() > 0, "{p}");
        assert_eq!(p["tokens"].as_u64().unwrap(), p["chars"].as_u64().unwrap() / 4);
        assert!(p["engine_ms"].as_f64().unwrap() > 0.0, "{p}");
        assert!(
            p["total_ms"].as_f64().unwrap() >= p["engine_ms"].as_f64().unwrap(),
            "{p}"
        );
        assert!(p["floor_elements"].as_u64().unwrap() > 0, "{p}");
        assert!(p["floor_ms"].as_f64().unwrap() >= 0.0, "{p}");
    }
    assert_eq!(v["median"]["page"], "median");
}

#[test]
fn bench_snapshot_table_and_viewport_mode() {
    let file = fixtures_dir().join("long.html");
    let out = run_cli(&[
        "bench",
        "snapshot",
        file.to_str().unwrap(),
        "--runs",
        "1",
        "--viewport-mode",
    ]);
    out.assert_success();
    assert!(out.stdout.contains("viewport mode"), "{}", out.stdout);
    let row = line_with(&out.stdout, "long.html");
    assert!(!row.contains("error"), "{row}");
}

#[test]
fn bench_snapshot_rejects_missing_inputs() {
    let out = run_cli(&["bench", "snapshot", "/nonexistent/dir/page.html"]);
    let line = out.assert_one_line_error();
    assert!(line.contains("no such file"), "{line}");
}

/// `sightline bench cua`: every provider completes the task with every
/// screenshot at the declared size (Stagehand too when it is installed:
/// its requests pass the scripted server's checks as well).
#[test]
fn bench_cua_completes_every_provider_at_the_declared_size() {
    let mut args = vec!["bench", "cua", "--runs", "1", "--json"];
    if !sightline_testkit::stagehand::installed() {
        args.push("--no-stagehand");
    }
    let out = run_cli(&args);
    out.assert_success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
    let figures = v["figures"].as_array().unwrap();
    let providers: Vec<&str> = figures.iter().map(|f| f["provider"].as_str().unwrap()).collect();
    for p in ["anthropic", "openai", "gemini"] {
        assert!(providers.contains(&p), "{providers:?}");
    }
    for f in figures {
        for r in f["runs"].as_array().unwrap() {
            assert_eq!(r["done"], true, "{f}");
            assert!(r["screenshots"].as_u64().unwrap() > 0, "{f}");
            assert_eq!(r["screenshots"], r["screenshots_at_size"], "{f}");
            assert!(!r["step_ms"].as_array().unwrap().is_empty(), "{f}");
        }
    }
}

#[test]
fn bench_mcp_sessions_reports_the_servers_memory_per_phase() {
    let out = run_cli(&[
        "bench",
        "mcp-sessions",
        "--sessions",
        "2",
        "--initialize-only",
        "40",
        "--session-idle",
        "1",
        "--json",
    ]);
    out.assert_success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
    assert!(v["server_rss_started_mb"].as_f64().unwrap() > 0.0, "{v}");
    let phases = v["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2, "{v}");
    assert_eq!(
        (phases[0]["sessions"].as_u64(), phases[1]["sessions"].as_u64()),
        (Some(2), Some(40))
    );
    for p in phases {
        for key in [
            "server_rss_before_mb",
            "server_rss_peak_mb",
            "server_rss_after_mb",
            "browser_pss_peak_mb",
        ] {
            assert!(p[key].as_f64().unwrap() > 0.0, "{key}: {p}");
        }
        assert!(
            p["server_rss_peak_mb"].as_f64() >= p["server_rss_after_mb"].as_f64(),
            "{p}"
        );
    }
}
