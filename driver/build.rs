//! Embeds the freshly built engine bundle into the driver.
//!
//! The bundle is rebuilt (by `scripts/build-engine.sh`) whenever a hash of the
//! engine and glue sources differs from the stamp written after the last
//! successful build, so a stale or committed bundle is never embedded.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn source_hash(root: &Path) -> String {
    let mut files = Vec::new();
    collect_files(&root.join("engine-wasm/src"), &mut files);
    for f in [
        "engine-wasm/Cargo.toml",
        "Cargo.toml",
        ".cargo/config.toml",
        "scripts/build-engine.sh",
        "scripts/env.sh",
    ] {
        files.push(root.join(f));
    }
    for f in [
        "engine-api.js",
        "build-bundle.mjs",
        "bundle-frame.mjs",
        "wasm-imports.mjs",
    ] {
        files.push(root.join("js-glue").join(f));
    }
    files.sort();
    // FNV-style mixing through DefaultHasher with fixed keys is deterministic
    // within one toolchain, which is all a local staleness stamp needs.
    let mut h = DefaultHasher::new();
    for f in &files {
        h.write(f.strip_prefix(root).unwrap_or(f).to_string_lossy().as_bytes());
        h.write(&fs::read(f).unwrap_or_default());
    }
    format!("{:016x}", h.finish())
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    for p in [
        "engine-wasm/src",
        "engine-wasm/Cargo.toml",
        "js-glue",
        "Cargo.toml",
        ".cargo/config.toml",
        "scripts",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=SIGHTLINE_ENGINE_BUNDLE");

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let bundle_out = out_dir.join("sightline-engine.bundle.js");

    // An explicitly given, prebuilt bundle (CI artefact, or a stand-in while the
    // engine does not build yet) is embedded as is.
    if let Some(given) = std::env::var_os("SIGHTLINE_ENGINE_BUNDLE").filter(|v| !v.is_empty()) {
        let given = PathBuf::from(given);
        println!("cargo:rerun-if-changed={}", given.display());
        fs::copy(&given, &bundle_out).unwrap_or_else(|e| panic!("SIGHTLINE_ENGINE_BUNDLE={}: {e}", given.display()));
        return;
    }

    let pkg = root.join("engine-wasm/pkg");
    let bundle = pkg.join("sightline-engine.bundle.js");
    let stamp = pkg.join(".source-hash");
    let hash = source_hash(&root);
    let fresh = bundle.exists() && fs::read_to_string(&stamp).map(|s| s.trim() == hash).unwrap_or(false);
    if !fresh {
        let _ = fs::remove_file(&stamp);
        // A clean environment: cargo's variables for *this* build (target,
        // rustflags, jobserver) must not leak into the nested wasm build.
        let mut cmd = Command::new("bash");
        cmd.arg(root.join("scripts/build-engine.sh")).env_clear();
        for var in [
            "PATH",
            "HOME",
            "CARGO_HOME",
            "RUSTUP_HOME",
            "RUSTUP_TOOLCHAIN",
            "TMPDIR",
            "LANG",
            "USER",
        ] {
            if let Ok(v) = std::env::var(var) {
                cmd.env(var, v);
            }
        }
        let output = cmd.output().expect("failed to run bash scripts/build-engine.sh");
        if !output.status.success() {
            panic!(
                "\n\nThe engine bundle is missing or stale and building it failed.\n\
                 Run: bash scripts/setup.sh && bash scripts/build-engine.sh\n\n{}\n",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        fs::write(&stamp, &hash).unwrap();
    }
    fs::copy(&bundle, &bundle_out).expect("copy engine bundle");
}
