#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzzer.cc: clang, ASan + UBSan over the whole core) in
# the sanitizer build dir (`make san` configures it) and runs each for FUZZ_SECONDS, starting from
# its committed seed corpus tests/fuzz/corpus/<target>/ (small interesting inputs, and every crash
# input once fixed, so each run first replays them all as regression tests). FUZZ_SECONDS=0 only
# replays the corpora. New inputs the fuzzer finds go to $FUZZ_DIR/corpus/<target>/ (kept between
# runs, not committed); a crash is saved as $FUZZ_DIR/artifacts/<target>-crash-<sha1> and fails
# the run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_DIR:-build-fuzz}
[[ $build == /* ]] || build=$root/$build
seconds=${FUZZ_SECONDS:-300}
jobs=${JOBS:-2}

if [[ ! -f $build/build.ninja ]]; then
  echo "fuzz: $build is not configured; run \`make san\` (the sanitizer build) first" >&2
  exit 1
fi
start=$(date +%s)
ninja -C "$build" -j"$jobs" fuzzers
echo "fuzz: build took $(($(date +%s) - start)) s"

mkdir -p "$build/artifacts"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
for src in "$root"/tests/fuzz/*_fuzzer.cc; do
  name=$(basename "$src" .cc)
  seeds=$root/tests/fuzz/corpus/$name
  found=$build/corpus/$name
  mkdir -p "$seeds" "$found"
  args=(-timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1
        "-artifact_prefix=$build/artifacts/$name-")
  [[ -f $root/tests/fuzz/$name.dict ]] && args+=("-dict=$root/tests/fuzz/$name.dict")
  # A fixed seed makes a bounded run explore the same inputs every time (make test).
  [[ -n ${FUZZ_SEED:-} ]] && args+=("-seed=$FUZZ_SEED")
  if [[ $seconds -gt 0 ]]; then
    args+=("-max_total_time=$seconds" "$found" "$seeds")
  else
    args+=(-runs=0 "$seeds")
  fi
  log=$build/$name.log
  start=$(date +%s)
  if "$build/$name" "${args[@]}" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    echo "fuzz: $name ok ($(($(date +%s) - start)) s, ${runs:-?} runs)"
  else
    echo "fuzz: $name FAILED, log $log:" >&2
    tail -n 60 "$log" >&2
    failed+=("$name")
  fi
done
if ((${#failed[@]} > 0)); then
  echo "fuzz: failed: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
