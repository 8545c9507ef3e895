#!/usr/bin/env bash
# Fuzzing smoke test (a minute or two): every fuzz target over its saved
# corpus as plain tests, then, unless FUZZ_SECONDS=0, each libFuzzer target
# for FUZZ_SECONDS seconds (default 15) from that corpus.
#
# The libFuzzer drivers build on stable Rust: the sanitizer-coverage passes
# are stable codegen flags, so neither nightly nor cargo-fuzz is needed (with
# cargo-fuzz installed, `cargo fuzz run <target> --features libfuzzer` in
# fuzz/ works as well). New inputs go to fuzz/target/corpus/<target>, not
# the saved corpus; crashes to fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${FUZZ_SECONDS:-15}
targets=(problem_file npy routh_step lemke reach_input reach_merge extremes_args restitution_file)

cargo test --release --quiet

if [ "$seconds" = 0 ]; then exit 0; fi
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# An explicit --target keeps the flags off build scripts (as cargo fuzz does).
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --features libfuzzer --bins --target "$host" --target-dir target/libfuzzer
for t in "${targets[@]}"; do
    mkdir -p "target/corpus/$t" "artifacts/$t"
    echo "== $t: ${seconds}s"
    "target/libfuzzer/$host/release/$t" "target/corpus/$t" "corpus/$t" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 2>&1 | grep -E "^(stat::number_of_executed_units|stat::peak_rss|#[0-9]+ *DONE)|ERROR|panicked|SUMMARY" || true
    if ls "artifacts/$t"/crash-* "artifacts/$t"/timeout-* "artifacts/$t"/oom-* >/dev/null 2>&1; then
        echo "$t: failures in fuzz/artifacts/$t"; exit 1
    fi
done
