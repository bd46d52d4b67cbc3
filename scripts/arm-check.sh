#!/usr/bin/env bash
# Usage: arm-check.sh [arm64|armhf]   (arm64 by default; `make test-arm` runs it, `make test-armhf`
# runs the 32-bit one)
# Cross-builds vireo-server and the unit tests for ARM with Debian's g++-<triplet> against the
# target libraries of scripts/arm-sysroot.sh (allocator: libc, the ARM default), runs every
# unit test under qemu-user and then scripts/arm-smoke.sh on the ARM server. Own build dir
# ($ARM_DIR, default build-aarch64 / build-armhf), kept between runs. `arm-check.sh arm64 build`
# stops after the build (scripts/test-all.sh builds early at low priority, tests at the end).
# -O1 without -g: cheaper to compile than the release build's -O2 -g (no debug information to
# write) while the unit tests still run optimized code under qemu, where -O0 code is slow.
# A unity build (cmake/unity.cmake): about half the compile time again.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-arm64}
case $arch in
  arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64-static bits=64 dir=build-aarch64 ;;
  armhf) triplet=arm-linux-gnueabihf qemu=qemu-arm-static bits=32 dir=build-armhf ;;
  *) echo "usage: arm-check.sh [arm64|armhf]" >&2; exit 2 ;;
esac
build=${ARM_DIR:-$dir}
[[ $build == /* ]] || build=$root/$build
jobs=${JOBS:-2}
# binfmt_misc may not be set up for ARM: every ARM binary is started through qemu explicitly.
run=("$qemu" -L "/usr/$triplet")

for tool in "$triplet-g++" "$qemu"; do
  if ! command -v "$tool" >/dev/null; then
    echo "arm-check: no $tool: apt-get install g++-$triplet qemu-user-static" >&2
    exit 1
  fi
done

began=$(date +%s)
bash "$root/scripts/arm-sysroot.sh" "$arch" "$build/sysroot"
if [[ ! -f $build/build.ninja ]]; then
  # Test discovery at ctest time, not after each link: this script runs the binary itself.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/$triplet.cmake" \
    -DVIREO_SYSROOT="$build/sysroot" -DCMAKE_BUILD_TYPE=ArmCheck \
    -DCMAKE_C_FLAGS_ARMCHECK=-O1 -DCMAKE_CXX_FLAGS_ARMCHECK=-O1 -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST >/dev/null
fi
ninja -C "$build" -j"$jobs" vireo-server vireo_unit_tests
built=$(date +%s)
echo "arm-check: $arch build took $((built - began)) s"
[[ ${2:-} != build ]] || exit 0

# Known failures on ARM, to be fixed where they live (then removed here), not in this script:
# - long double is 128-bit IEEE on aarch64 and a plain double on armhf (80-bit x87 on x86-64):
#   these expect x86's digits for INCRBYFLOAT, which redis-server on ARM would not print either.
# - this expects jemalloc size classes; glibc's smallest chunk holds 24 bytes, not 16.
known=(Numbers.IncrByFloatMatchesRedis Numbers.IncrByFloatHugeResultPrintsAllDigits
       StringsTest.StringsIncrByFloat
       Value.ShortStringsConvertToRawOnAppendAndCopy)
filter=$(IFS=:; echo "${known[*]}")
"${run[@]}" "$build/vireo_unit_tests" --gtest_brief=1 "--gtest_filter=-$filter"
tested=$(date +%s)
echo "arm-check: $arch unit tests took $((tested - built)) s"

EXPECT_BITS=$bits EXPECT_ALLOCATOR=libc bash "$root/scripts/arm-smoke.sh" \
  "${run[@]}" "$build/vireo-server"
echo "arm-check: $arch ok in $(($(date +%s) - began)) s"
