//! Packaging as a JavaScript contributor meets it: `npm pack` run in
//! js-glue/ of a fresh clone (no dist/, no engine built yet) packs the
//! engine, its JS build and the main-world hook, because the package's
//! prepack builds them with the project's own scripts.

use std::path::Path;
use std::process::Command;

use crate::support::packages::repo_root;

fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn npm_pack_in_a_clean_clone_contains_dist() {
    let repo = repo_root();
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("sightline");
    let head = run(&repo, "git", &["rev-parse", "HEAD"]);
    let (repo_s, clone_s) = (repo.to_str().unwrap(), clone.to_str().unwrap());
    run(
        dir.path(),
        "git",
        &["clone", "-q", "--shared", "--no-checkout", repo_s, clone_s],
    );
    run(&clone, "git", &["checkout", "-q", head.trim()]);
    assert!(!clone.join("js-glue/dist").exists(), "dist/ is built, not committed");

    // Reused, not part of what is tested: the installed tools (npm's
    // binaryen) and the compiled dependencies of the two wasm builds
    // (copies: the clone's engine is compiled anew from its own sources).
    std::os::unix::fs::symlink(repo.join(".tools"), clone.join(".tools")).unwrap();
    std::fs::create_dir_all(clone.join("target")).unwrap();
    for build in ["engine-wasm", "engine-wasm-js"] {
        let from = repo.join("target").join(build);
        if from.is_dir() {
            run(
                &repo,
                "cp",
                &["-a", from.to_str().unwrap(), clone.join("target").to_str().unwrap()],
            );
        }
    }

    let js = clone.join("js-glue");
    let packed = run(
        &js,
        "npm",
        &["pack", "--silent", "--pack-destination", dir.path().to_str().unwrap()],
    );
    let name = packed.lines().last().expect("npm pack names the tarball").trim();
    let listing = run(dir.path(), "tar", &["tzf", name]);
    for file in [
        "package/dist/sightline-engine.bundle.js",
        "package/dist/sightline-engine.wasm",
        "package/dist/sightline-engine-js.bundle.js",
        "package/dist/main-world-hook.js",
        "package/index.js",
        "package/src/attach.js",
    ] {
        assert!(
            listing.lines().any(|l| l == file),
            "{file} missing from the tarball:\n{listing}"
        );
    }
}
