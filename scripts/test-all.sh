#!/usr/bin/env bash
# Every test, as `make test` runs it after `make deps build`:
#  1. the Release build's unit tests and integration suite (io-threads 1);
#  2. the sanitizer build (`make san`: clang-14, ASan + UBSan with alignment, every report fatal)
#     runs the unit tests, the integration suite with io-threads 4 and the differential tests;
#  3. each libFuzzer target for FUZZ_SECONDS from its seed corpus (scripts/fuzz.sh).
# The sanitizer build compiles at the lowest CPU priority while step 1 runs: those tests spend
# much of their time waiting on sockets and child processes, and CI machines have two cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${BUILD_DIR:-build}
san=${FUZZ_DIR:-build-fuzz}
jobs=${JOBS:-2}
mkdir -p "$san"
san_log=$san/san-build.log

start=$(date +%s)
nice -n 19 make --no-print-directory san FUZZ_DIR="$san" JOBS="$jobs" >"$san_log" 2>&1 &
san_pid=$!
# Never leave the background build running when this script stops early.
trap 'kill $san_pid 2>/dev/null || true' EXIT

release_status=0
(cd "$build" && ctest --output-on-failure -j"$jobs" -E '^(integration_io_threads|compat)$') ||
  release_status=$?
echo "test-all: Release tests took $(($(date +%s) - start)) s (status $release_status)"

if ! wait $san_pid; then
  echo "test-all: the sanitizer build failed:" >&2
  tail -n 80 "$san_log" >&2
  exit 1
fi
trap - EXIT
echo "test-all: sanitizer build done after $(($(date +%s) - start)) s"
[[ $release_status -eq 0 ]] || exit "$release_status"

step=$(date +%s)
(cd "$san" && ctest --output-on-failure -j"$jobs" -E '^integration$')
echo "test-all: sanitizer tests took $(($(date +%s) - step)) s"

FUZZ_DIR=$san FUZZ_SECONDS=${FUZZ_SECONDS:-10} FUZZ_SEED=1 JOBS=$jobs bash scripts/fuzz.sh
echo "test-all: all tests passed in $(($(date +%s) - start)) s"
