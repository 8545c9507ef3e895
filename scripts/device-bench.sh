#!/usr/bin/env bash
# The GPU's figures in one command on a machine with a GPU and many cores,
# from release binaries built elsewhere: the GPU tests, then `impactset
# bench` for each problem of docs/performance.md's GPU table on the GPU
# (f32 and f64 random-lemke) and on all of the host's cores, then one
# 2^20-sample compass-gait run end to end. Before the benchmarks, the
# mapping of samples to threads (examples/gpu_mapping.rs): one invocation
# per sample against persistent workers (compass gait, cube-flat), and one
# invocation against one workgroup per sample by step LCP size (the
# cooperative kernel's threshold). The result is a Markdown table
# (device-bench.md) with logs and the bench's JSON beside it, and the
# pivots' arithmetic rate against the device's f32 and f64 peak (pivots a
# sample counted on the build machine by examples/divergence.rs).
#
#   bash scripts/device-bench.sh pack [--smoke]
#       On the build machine: `cargo build --release` of the command line
#       and `cargo test --release --no-run` of the GPU tests, their
#       binaries stripped and compressed into .device-bench/ (ignored by
#       git; about 40 MB).
#   bash scripts/device-bench.sh run [--smoke] [--out DIR] [--budget SECONDS]
#       On the GPU machine, in the repository's root with .device-bench/
#       beside it (and the Vulkan loader's .deb files in .gl/ where the
#       machine has no loader): writes DIR/device-bench.md (DIR: $OUT, else
#       .device-bench/out). Every step has its own timeout and the table is
#       rewritten after each, so a run cut short keeps what it measured.
#       --budget (default 450 s) is the whole run's: a step that would not
#       fit is skipped and marked so. DEVICE_BENCH_PROBLEMS="compass-gait
#       go2-landing" limits the benchmarks to those problems.
#
# --smoke runs every step at tiny sizes with short timeouts (and lists the
# tests instead of running them): to check on a software adapter (Mesa's
# lavapipe) that the script works before a GPU machine's minutes are spent.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BUNDLE="$ROOT/.device-bench"

# The GPU test binaries (crates/impactset/tests/gpu_*.rs and the command
# line's gpu_auto.rs): the quick parity tests run before the benchmarks,
# the others after them with what is left of the budget.
FIRST_TESTS="gpu_parity gpu_lemke gpu_reach gpu_chacha gpu_schedule"
LATER_TESTS="gpu_restitution gpu_all gpu_compare gpu_timing gpu_large"
CORE_TESTS="$FIRST_TESTS $LATER_TESTS"
CLI_TESTS="gpu_auto"

# The benchmarks' problems, each with its size class (samples a run: small
# 2^20, large 2^18, humanoid 2^16; the 16-core CPU takes seconds a run on
# the humanoid).
DATA="crates/impactset/tests/data"
BENCH_PROBLEMS="rocking-block:small box-wall:small ramone:small compass-gait:small cube-flat:large \
$DATA/go2-landing.json:large $DATA/humanoid-feet-flat.json:humanoid disk-stack:large"

mode="${1:-}"
shift || true
smoke=0
out="${OUT:-}"
budget=450
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke=1 ;;
        --out) out="$2"; shift ;;
        --budget) budget="$2"; shift ;;
        *) echo "device-bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

pack() {
    local exclude
    exclude="$(git rev-parse --git-common-dir)/info/exclude"
    grep -qx '/.device-bench/' "$exclude" 2>/dev/null || echo '/.device-bench/' >>"$exclude"
    rm -rf "$BUNDLE"
    mkdir -p "$BUNDLE/bin" "$BUNDLE/tests"
    cargo build --release -p impactset-cli
    local tests=()
    for t in $CORE_TESTS; do tests+=(--test "$t"); done
    # The executables cargo built, from its JSON messages.
    local list="$BUNDLE/executables.txt"
    cargo test --release -p impactset --features gpu "${tests[@]}" --no-run --message-format=json |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' >"$list"
    cargo test --release -p impactset-cli --test "$CLI_TESTS" --no-run --message-format=json |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' >>"$list"
    # The host's share alone (no GPU needed): criterion's binary.
    cargo bench -p impactset --features gpu --bench gpu_columns --no-run --message-format=json |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["bench"]:
        print(m["target"]["name"], m["executable"])' >>"$list"
    # The mapping comparisons (persistent workers, the kernels' crossover).
    cargo build --release -p impactset --features gpu --example gpu_mapping
    # The benchmarks' pivots a sample, from the CPU reference (the GPU's
    # pivot sequence in f64): the table's pivot arithmetic rate and share of
    # the device's peak. Measured here, so it costs the GPU machine nothing.
    cargo build --release -p impactset --example divergence
    local problems=()
    for entry in $BENCH_PROBLEMS; do problems+=("${entry%%:*}"); done
    target/release/examples/divergence 16384 "${problems[@]}" --json "$BUNDLE/pivots.json"
    strip -o "$BUNDLE/bin/impactset" target/release/impactset
    strip -o "$BUNDLE/bin/gpu_mapping" target/release/examples/gpu_mapping
    while read -r name exe; do
        strip -o "$BUNDLE/tests/$name" "$exe"
    done <"$list"
    # Where the tests were built: they read their data and the binary
    # under test through paths compiled in (CARGO_MANIFEST_DIR,
    # CARGO_BIN_EXE_impactset), which `run` points at the repository.
    echo "$ROOT" >"$BUNDLE/build-root"
    (cd "$BUNDLE" && tar -cJf bundle.tar.xz bin tests build-root pivots.json && rm -rf bin tests pivots.json)
    du -sh "$BUNDLE/bundle.tar.xz"
}

# --- run ---------------------------------------------------------------

started=$(date +%s)
left() { echo $((budget - ($(date +%s) - started))); }

# `step NAME SECONDS COMMAND...`: runs COMMAND under a timeout of SECONDS
# (less when the budget has less left), its output in $out/NAME.log;
# records the outcome in $out/steps.tsv. Never fails the script.
step() {
    local name="$1" seconds="$2"
    shift 2
    local remaining
    remaining=$(left)
    if [ "$remaining" -lt 15 ]; then
        printf '%s\tskipped (budget spent)\t0\n' "$name" >>"$out/steps.tsv"
        return 0
    fi
    [ "$seconds" -gt "$remaining" ] && seconds="$remaining"
    local t0 rc=0
    t0=$(date +%s)
    echo "== $name (at most ${seconds}s): $*"
    timeout --kill-after=10 "$seconds" "$@" >"$out/$name.log" 2>&1 || rc=$?
    local took=$(($(date +%s) - t0)) outcome
    case $rc in
        0) outcome=passed ;;
        124 | 137) outcome="timed out after ${seconds}s" ;;
        *) outcome="failed (exit $rc)" ;;
    esac
    printf '%s\t%s\t%s\n' "$name" "$outcome" "$took" >>"$out/steps.tsv"
    echo "   $outcome in ${took}s"
    tail -n 3 "$out/$name.log" | sed 's/^/   | /'
    table
    return 0
}

# Rewrites $out/device-bench.md from the steps so far and the bench's JSON.
table() {
    python3 - "$out" "$smoke" <<'PY' || echo "(table not written: python3 failed)" >&2
import json, sys
from pathlib import Path

out, smoke = Path(sys.argv[1]), sys.argv[2] == "1"
reports = {}
for path in sorted(out.glob("bench-*.json")):
    reports[path.stem] = json.loads(path.read_text())
machine = next((r["machine"] for r in reports.values()), "?")
adapter = next((r["adapter"] for r in reports.values() if r.get("adapter")), "?")
lines = [
    f"Measured by `scripts/device-bench.sh run{' --smoke' if smoke else ''}`: {machine}; GPU {adapter}.",
    "",
    "| problem | rule | samples | CPU (all cores) samples/s | GPU f32 samples/s | f32 ÷ CPU | f32 kernel / wall ms | GPU f64 samples/s | f64 ÷ CPU | f64 kernel / wall ms |",
    "|---|---|---|---|---|---|---|---|---|---|",
]
rows = {}
for stem, report in reports.items():
    for row in report["rows"]:
        key = (row["scene"], row["selection"], row["samples"])
        kind = "cpu" if row["backend"] == "cpu" else row["precision"]
        rows.setdefault(key, {})[kind] = row

def rate(row):
    return f"{row['samples_per_s']:,.0f}" if row else "–"

def ratio(row, cpu):
    return f"{row['samples_per_s'] / cpu['samples_per_s']:.2f}×" if row and cpu else "–"

def times(row):
    if not row:
        return "–"
    kernel = "–" if row.get("kernel_ms") is None else f"{row['kernel_ms']:.1f}"
    return f"{kernel} / {row['wall_ms']:.1f}"

for (scene, rule, samples), kinds in rows.items():
    cpu, f32, f64 = kinds.get("cpu"), kinds.get("f32"), kinds.get("f64")
    lines.append(
        f"| {scene} | {rule} | {samples} | {rate(cpu)} | {rate(f32)} | {ratio(f32, cpu)} | {times(f32)} "
        f"| {rate(f64)} | {ratio(f64, cpu)} | {times(f64)} |"
    )
# The pivots' arithmetic: a dense pivot updates N rows of `stride` scalars
# with one multiply-add each (2 N stride flops; an upper bound, rows with a
# zero in the pivot column are skipped), times the CPU reference's mean
# pivots a sample (pivots.json, from the build machine), over the kernel
# time, against the device's peak of plain (non-tensor) f32 / f64 FMA
# arithmetic from NVIDIA's data sheets.
PEAKS = [("H200 NVL", 60e12, 30e12), ("H100 NVL", 60e12, 30e12), ("H100 PCIe", 51e12, 26e12),
         ("H200", 67e12, 34e12), ("H100", 67e12, 34e12)]
peak = next(((f32, f64) for name, f32, f64 in PEAKS if name in adapter), None)
pivots_path = out / "pivots.json"
pivots = {p["problem"]: p for p in json.loads(pivots_path.read_text())} if pivots_path.exists() else {}
arithmetic = []
for (scene, rule, samples), kinds in rows.items():
    work = pivots.get(scene)
    if not work:
        continue
    flops = samples * work["pivots_mean"] * 2 * work["n"] * work["stride"]
    cells = []
    for i, kind in enumerate(("f32", "f64")):
        row = kinds.get(kind)
        if not row or row.get("kernel_ms") is None:
            cells.append("–")
            continue
        rate = flops / (row["kernel_ms"] / 1e3)
        share = f" ({100 * rate / peak[i]:.2f} % of peak)" if peak else ""
        cells.append(f"{rate / 1e9:,.1f}{share}")
    arithmetic.append(f"| {scene} | {work['n']} | {work['stride']} | {work['pivots_mean']:.1f} | {cells[0]} | {cells[1]} |")
if arithmetic:
    lines += ["", "Pivot arithmetic, GFLOP/s over the kernel time (2 N stride flops a dense pivot, the CPU's mean "
              "pivots a sample over samples 0 .. 16383):", "",
              "| problem | N | stride | pivots a sample | f32 GFLOP/s | f64 GFLOP/s |", "|---|---|---|---|---|---|"]
    lines += arithmetic
e2e = out / "e2e.txt"
if e2e.exists():
    samples, ms = e2e.read_text().split()
    lines += ["", f"`impactset sample compass-gait -n {samples} --backend gpu --precision f32`, the whole command: {ms} ms."]
columns = out / "host-columns.log"
if columns.exists():
    lines += ["", "Host columns of 2^20 samples (`gpu_columns`, median ms): "]
    name = None
    for line in columns.read_text().splitlines():
        if line.startswith("gpu_host_columns/"):
            name = line.split()[0].removeprefix("gpu_host_columns/")
        if "time:" in line and name:
            parts = line.split("[")[1].split()
            lines[-1] += f"{name} {parts[2]} {parts[3]}; "
            name = None
for part in ("persistent", "crossover"):
    log = out / f"mapping-{part}.log"
    mapping = [l for l in log.read_text().splitlines() if l.startswith("|")] if log.exists() else []
    if mapping:
        lines += ["", f"Mapping, {part} (`gpu_mapping {part}`, f32 random-lemke; fastest of 2 runs):", ""] + mapping
lines += ["", "| step | outcome | seconds |", "|---|---|---|"]
steps = out / "steps.tsv"
for line in steps.read_text().splitlines() if steps.exists() else []:
    name, outcome, took = line.split("\t")
    lines.append(f"| {name} | {outcome} | {took} |")
(out / "device-bench.md").write_text("\n".join(lines) + "\n")
PY
}

run() {
    [ -n "$out" ] || out="$BUNDLE/out"
    mkdir -p "$out"
    # A fresh table: no row of an earlier run in this folder.
    rm -f "$out"/bench-*.json "$out"/*.log "$out/e2e.json" "$out/e2e.txt" "$out/device-bench.md"
    : >"$out/steps.tsv"
    [ -f "$BUNDLE/bundle.tar.xz" ] || { echo "no $BUNDLE/bundle.tar.xz: run 'scripts/device-bench.sh pack' first" >&2; exit 2; }
    local work="$BUNDLE/unpacked"
    rm -rf "$work" && mkdir -p "$work"
    tar -xJf "$BUNDLE/bundle.tar.xz" -C "$work"
    # The pivots a sample of each problem, counted at pack time.
    [ -f "$work/pivots.json" ] && cp "$work/pivots.json" "$out/pivots.json"
    # The Vulkan loader, where the machine has none (see the device notes:
    # its .deb files in .gl/).
    if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' && compgen -G ".gl/*.deb" >/dev/null; then
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then export VK_DRIVER_FILES="$icd"; fi
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" IMPACTSET_REQUIRE_GPU=1
    # The tests' compiled-in paths lead to this checkout.
    local built
    built=$(cat "$work/build-root")
    if [ "$built" != "$ROOT" ] && [ ! -e "$built" ]; then
        mkdir -p "$(dirname "$built")" && ln -s "$ROOT" "$built"
    fi
    mkdir -p "$ROOT/target/release" "$ROOT/target/tmp"
    # The binary the command line's tests run (CARGO_BIN_EXE_impactset).
    [ -x "$ROOT/target/release/impactset" ] || cp "$work/bin/impactset" "$ROOT/target/release/impactset"
    local cli="$work/bin/impactset"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >"$out/gpu.txt" 2>&1 || true
    nproc >>"$out/gpu.txt"

    # 1. The quick GPU tests (--smoke: listed only, which checks that they
    # start on this machine).
    local t
    for t in $FIRST_TESTS; do
        if [ "$smoke" = 1 ]; then
            step "test-$t" 30 "$work/tests/$t" --list
        else
            step "test-$t" 45 "$work/tests/$t" --test-threads 4
        fi
    done

    # 2. How samples map to threads (examples/gpu_mapping.rs, f32
    # random-lemke, every row's outputs checked bit for bit against its
    # problem's first row): one invocation per sample against persistent
    # workers, then one invocation against one workgroup per sample at
    # step LCPs of 22 to 88 rows. Rows are printed as measured, so a step
    # cut by its timeout keeps them.
    local part
    for part in persistent crossover; do
        if [ "$smoke" = 1 ]; then
            step "mapping-$part" 120 "$work/bin/gpu_mapping" "$part" --smoke
        else
            step "mapping-$part" 75 "$work/bin/gpu_mapping" "$part"
        fi
    done

    # 3. impactset bench: each problem alone (one timeout each), the
    # host's cores (f64, the CPU's only precision) and the GPU in f32 and
    # f64, random-lemke. Two-contact scenes at 2^20 samples, the others at
    # 2^18 (the 16-core CPU takes seconds a run on the humanoid).
    local small=1048576 large=262144 humanoid=65536 reps=3 seconds=60
    if [ "$smoke" = 1 ]; then small=256 large=64 humanoid=64 reps=1 seconds=60; fi
    local problem samples name precision
    for entry in $BENCH_PROBLEMS; do
        problem="${entry%%:*}"
        case "${entry##*:}" in
            small) samples=$small ;;
            large) samples=$large ;;
            *) samples=$humanoid ;;
        esac
        name=$(basename "$problem" .json)
        # DEVICE_BENCH_PROBLEMS="a b": only these problems' rows.
        if [ -n "${DEVICE_BENCH_PROBLEMS:-}" ] && [[ " $DEVICE_BENCH_PROBLEMS " != *" $name "* ]]; then continue; fi
        step "bench-$name-cpu" "$seconds" "$cli" bench "$problem" -n "$samples" --backends cpu \
            --repetitions "$reps" --json "$out/bench-$name-cpu.json"
        for precision in f32 f64; do
            step "bench-$name-$precision" "$seconds" "$cli" bench "$problem" -n "$samples" --backends gpu \
                --precision "$precision" --repetitions "$reps" --json "$out/bench-$name-$precision.json"
        done
    done

    # 4. 2^20 compass-gait samples end to end in f32: the whole command
    # (process start, adapter, plan, kernels, read-back, summary), beside
    # the bench's row (plan, kernels and read-back).
    local e2e=1048576
    [ "$smoke" = 1 ] && e2e=1024
    step "e2e-compass-gait-f32" "$seconds" bash -c "s=\$(date +%s%N); '$cli' sample compass-gait -n $e2e \
        --backend gpu --precision f32 --json >'$out/e2e.json' && echo $e2e \$(( (\$(date +%s%N) - s) / 1000000 )) >'$out/e2e.txt'"

    # 5. The host's share: a run's outputs into the result's columns, one
    # thread against every core (benches/gpu_columns.rs, synthetic outputs).
    if [ "$smoke" = 1 ]; then
        step host-columns 60 "$work/tests/gpu_columns" --bench --warm-up-time 0.1 --measurement-time 0.2 --sample-size 10
    else
        step host-columns 60 "$work/tests/gpu_columns" --bench --warm-up-time 1 --measurement-time 3 --sample-size 10
    fi

    # 6. The other GPU tests, the large ones lavapipe cannot run included.
    for t in $LATER_TESTS $CLI_TESTS; do
        if [ "$smoke" = 1 ]; then
            step "test-$t" 30 "$work/tests/$t" --list
        else
            step "test-$t" 60 "$work/tests/$t" --include-ignored --test-threads 4
        fi
    done
    table
    echo "table: $out/device-bench.md"
    cat "$out/device-bench.md"
}

case "$mode" in
    pack) pack ;;
    run) run ;;
    *) sed -n '2,30p' "$0"; exit 2 ;;
esac
