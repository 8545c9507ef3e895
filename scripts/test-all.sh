#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (core, command line,
# GPU tests on any Vulkan adapter) and the Python package. Needs only a Rust
# toolchain and Python 3 with pip; everything else is installed into a
# virtual environment (.venv) on the first run.
#
#   bash scripts/test-all.sh
#
# IMPACTSET_REQUIRE_GPU=1 makes GPU tests fail instead of skipping when no
# adapter is found (CI sets it and installs Mesa's lavapipe).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: cargo test --release --workspace"
cargo test --release --workspace

echo "== fuzz targets over their saved corpus"
FUZZ_SECONDS=0 bash scripts/fuzz-smoke.sh

echo "== the core library builds without the command line's or the GPU's dependencies"
cargo check -p impactset --no-default-features --lib
if cargo tree -p impactset -e normal --no-default-features | grep -E "(clap|indicatif|wgpu|plotters|parquet|arrow-array) v" >/dev/null; then
    echo "the core library depends on a front-end crate:" >&2
    cargo tree -p impactset -e normal --no-default-features | grep -E "(clap|indicatif|wgpu|plotters|parquet|arrow-array) v" >&2
    exit 1
fi
