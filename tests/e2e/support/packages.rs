//! The npm tarball and the extension, as users get them, for the npm-module
//! and extension tests: built by the project's own scripts (scripts/test.sh
//! builds them once and passes their paths in `SIGHTLINE_NPM_TARBALL` and
//! `SIGHTLINE_EXTENSION_ZIP`; a focused run builds them itself), then
//! unpacked into a temporary directory, so packaging cannot rot.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// Runs `bash scripts/<script>` and returns the last line it printed (the artefact's path).
fn build_with(script: &str) -> PathBuf {
    let out = Command::new("bash")
        .arg(repo_root().join("scripts").join(script))
        .current_dir(repo_root())
        .output()
        .unwrap_or_else(|e| panic!("run {script}: {e}"));
    assert!(
        out.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(stdout.lines().last().expect("the artefact's path").trim())
}

fn artefact(env: &str, script: &str) -> PathBuf {
    match std::env::var_os(env).filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => build_with(script),
    }
}

/// The packed npm module (`npm pack` of js-glue/).
pub fn npm_tarball() -> &'static Path {
    static TARBALL: OnceLock<PathBuf> = OnceLock::new();
    TARBALL.get_or_init(|| artefact("SIGHTLINE_NPM_TARBALL", "build-npm.sh"))
}

/// The extension's zip, as scripts/build-extension.sh packs it.
pub fn extension_zip() -> &'static Path {
    static ZIP: OnceLock<PathBuf> = OnceLock::new();
    ZIP.get_or_init(|| artefact("SIGHTLINE_EXTENSION_ZIP", "build-extension.sh"))
}

/// The extension unpacked from its zip into `dir` (what `--load-extension` takes).
pub fn unpack_extension(dir: &Path) -> PathBuf {
    let target = dir.join("extension");
    let status = Command::new("unzip")
        .args(["-q", "-o"])
        .arg(extension_zip())
        .arg("-d")
        .arg(&target)
        .status()
        .expect("run unzip");
    assert!(status.success(), "unzip the extension");
    target
}

/// A Node project in `dir` as a user would have it: the tarball installed
/// as `node_modules/sightline`, next to the pinned playwright-core and
/// puppeteer-core (tests/npm/node_modules, from scripts/setup.sh).
pub fn node_project(dir: &Path) -> PathBuf {
    let modules = dir.join("node_modules");
    let sightline = modules.join("sightline");
    std::fs::create_dir_all(&sightline).unwrap();
    let status = Command::new("tar")
        .arg("xzf")
        .arg(npm_tarball())
        .arg("-C")
        .arg(&sightline)
        .arg("--strip-components=1")
        .status()
        .expect("run tar");
    assert!(status.success(), "unpack {}", npm_tarball().display());
    let pinned = repo_root().join("tests/npm/node_modules");
    for lib in ["playwright-core", "puppeteer-core"] {
        assert!(
            pinned.join(lib).is_dir(),
            "{lib} is missing from tests/npm/node_modules: run scripts/setup.sh"
        );
        std::os::unix::fs::symlink(pinned.join(lib), modules.join(lib)).unwrap();
    }
    dir.to_path_buf()
}

/// Runs `node <script> <arg>` in `dir` (killed after `super::CLI_TIMEOUT`)
/// and parses the one JSON object it prints.
pub fn run_node(dir: &Path, script: &Path, arg: &Value) -> Value {
    let mut cmd = Command::new("node");
    cmd.arg(script).arg(arg.to_string()).current_dir(dir);
    let out = super::run_with_limit(cmd, &format!("node {}", script.display()));
    assert!(
        out.status.success(),
        "node {} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        script.display(),
        out.status,
        out.stdout,
        out.stderr
    );
    serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("node printed no JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}
