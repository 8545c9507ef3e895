//! Detects Siconos' numerics library (Debian: `libsiconos-numerics-dev`) and,
//! when present, compiles the small C shim that calls `lcp_lexicolemke`.
//! Without it the binary still builds and says how to install the peer.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(siconos)");
    println!("cargo::rerun-if-changed=src/siconos_shim.c");
    println!("cargo::rerun-if-env-changed=SICONOS_PREFIX");
    let prefix = PathBuf::from(std::env::var("SICONOS_PREFIX").unwrap_or_else(|_| "/usr".into()));
    let include = prefix.join("include/siconos/numerics");
    let lib_dirs = [prefix.join("lib/x86_64-linux-gnu"), prefix.join("lib/aarch64-linux-gnu"), prefix.join("lib")];
    let lib = lib_dirs.iter().find(|d| d.join("libsiconos_numerics.so").exists());
    let (true, Some(lib)) = (include.join("LCP_Solvers.h").exists(), lib) else {
        println!(
            "cargo::warning=Siconos numerics not found under {} (apt-get install libsiconos-numerics-dev, or set SICONOS_PREFIX): the peer benchmark will only report impactset",
            prefix.display()
        );
        return;
    };
    compile_shim(&include);
    println!("cargo::rustc-link-search=native={}", lib.display());
    println!("cargo::rustc-link-lib=dylib=siconos_numerics");
    println!("cargo::rustc-cfg=siconos");
}

fn compile_shim(include: &Path) {
    cc::Build::new()
        .file("src/siconos_shim.c")
        .include(include)
        .include(include.parent().unwrap_or(include))
        .opt_level(2)
        .warnings(false)
        .compile("siconos_shim");
}
