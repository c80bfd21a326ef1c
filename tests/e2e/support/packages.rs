//! The npm tarball and the extension, as users get them, for the npm-module
//! and extension tests: built by the project's own scripts (scripts/test.sh
//! builds them once and passes their paths in `SIGHTLINE_NPM_TARBALL` and
//! `SIGHTLINE_EXTENSION_ZIP`; a focused run builds them itself), then
//! unpacked into a temporary directory, so packaging cannot rot.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
    let mut child = Command::new("node")
        .arg(script)
        .arg(arg.to_string())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run node");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + super::CLI_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for node") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "node {} did not finish within {:?}:\n{}",
                script.display(),
                super::CLI_TIMEOUT,
                err.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        status.success(),
        "node {} failed ({status:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        script.display()
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("node printed no JSON ({e}):\n{stdout}\n{stderr}"))
}
