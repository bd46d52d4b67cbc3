#!/usr/bin/env bash
# Every test, as `make test` runs it after `make deps build`:
#  1. the Release build's unit tests and integration suite (io-threads 1);
#  2. the sanitizer build (`make san`: clang-14, ASan + UBSan with alignment, every report fatal)
#     runs the unit tests, the integration suite with io-threads 4 and the differential tests;
#  3. each libFuzzer target for FUZZ_SECONDS from its seed corpus (scripts/fuzz.sh);
#  4. unless ARM_CHECK=0 (`make test ARM_CHECK=0`), the aarch64 and then the 32-bit armhf cross
#     builds (scripts/arm-check.sh: unity builds at -O1) run their unit tests and a smoke test
#     under qemu-user.
# The sanitizer build compiles at the lowest CPU priority while step 1 runs: those tests spend
# much of their time waiting on sockets and child processes, and CI machines have two cores
# (the integration suites run on two pytest-xdist workers for the same reason, CMakeLists.txt).
# A fresh clone took 1687 s here on 2026-12-04 (Release tests 346 s, sanitizer tests 822 s).
# The ARM builds (and their compiler and qemu packages), likewise, from the end of the sanitizer
# build on, aarch64 then armhf: they get the CPU the sanitizer tests and the fuzzers (one at a
# time) leave idle, and the armhf build goes on while the aarch64 tests run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${BUILD_DIR:-build}
san=${FUZZ_DIR:-build-fuzz}
jobs=${JOBS:-2}
mkdir -p "$san"
san_log=$san/san-build.log
arm=${ARM_DIR:-build-aarch64}
armhf=${ARMHF_DIR:-build-armhf}

start=$(date +%s)
nice -n 19 make --no-print-directory san FUZZ_DIR="$san" JOBS="$jobs" >"$san_log" 2>&1 &
san_pid=$!
# Never leave the background build running when this script stops early.
trap 'kill $san_pid 2>/dev/null || true' EXIT

release_status=0
(cd "$build" && ctest --output-on-failure -j"$jobs" -E '^(integration_io_threads|compat)$') ||
  release_status=$?
echo "test-all: Release tests took $(($(date +%s) - start)) s (status $release_status)"

# await PID WHAT LOG: waits for a background build; when it failed, shows its log and stops.
await() {
  wait "$1" && return 0
  echo "test-all: the $2 failed:" >&2
  tail -n 80 "$3" >&2
  exit 1
}
await $san_pid "sanitizer build" "$san_log"
trap - EXIT
echo "test-all: sanitizer build done after $(($(date +%s) - start)) s"
[[ $release_status -eq 0 ]] || exit "$release_status"

arm_pid=
arm64_built=$arm/.built-by-test-all
if [[ ${ARM_CHECK:-1} == 1 ]]; then
  mkdir -p "$arm" "$armhf"
  rm -f "$arm64_built"
  # Its own process group (setsid), so that stopping it stops its compilers too. The marker
  # file tells the aarch64 build is done while the armhf one goes on.
  ARM_DIR=$arm ARMHF_DIR=$armhf MARK=$arm64_built JOBS=$jobs setsid nice -n 19 bash -c \
    'bash scripts/install-deps.sh arm && bash scripts/arm-check.sh arm64 build && touch "$MARK" &&
     ARM_DIR=$ARMHF_DIR bash scripts/arm-check.sh armhf build' \
    >"$arm/arm-build.log" 2>&1 &
  arm_pid=$!
  trap 'kill -- -$arm_pid 2>/dev/null || true' EXIT
fi

step=$(date +%s)
(cd "$san" && ctest --output-on-failure -j"$jobs" -E '^integration$')
echo "test-all: sanitizer tests took $(($(date +%s) - step)) s"

FUZZ_DIR=$san FUZZ_SECONDS=${FUZZ_SECONDS:-10} FUZZ_SEED=1 JOBS=$jobs bash scripts/fuzz.sh

if [[ -n $arm_pid ]]; then
  step=$(date +%s)
  while [[ ! -f $arm64_built ]] && kill -0 $arm_pid 2>/dev/null; do sleep 1; done
  [[ -f $arm64_built ]] || await $arm_pid "ARM builds" "$arm/arm-build.log"
  echo "test-all: aarch64 build done $(($(date +%s) - step)) s after the fuzzers"
  ARM_DIR=$arm JOBS=$jobs bash scripts/arm-check.sh arm64
  step=$(date +%s)
  await $arm_pid "ARM builds" "$arm/arm-build.log"
  trap - EXIT
  echo "test-all: armhf build done $(($(date +%s) - step)) s after the aarch64 tests"
  ARM_DIR=$armhf JOBS=$jobs bash scripts/arm-check.sh armhf
fi
echo "test-all: all tests passed in $(($(date +%s) - start)) s"
