# Thin wrapper over CMake + Ninja. See README.md.
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
TSAN_DIR  ?= build-tsan
FUZZ_DIR  ?= build-fuzz
# Cross builds run under qemu-user (scripts/arm-check.sh): make test-arm, make test-armhf.
ARM_DIR   ?= build-aarch64
ARMHF_DIR ?= build-armhf
# libFuzzer seconds per target: `make fuzz`, and the bounded run at the end of `make test`
# (0 there only replays the committed corpora).
FUZZ_SECONDS      ?= 300
FUZZ_TEST_SECONDS ?= 10
JOBS      ?= 2
PORT      ?= 6379
# make install: PREFIX=/usr puts the config in /etc/vireo, any other prefix in $(PREFIX)/etc/vireo.
PREFIX    ?= /usr/local
DESTDIR   ?=
# `make ALLOCATOR=libc` (or jemalloc): empty keeps the build dir's choice, whose default is
# jemalloc on x86-64 and libc on ARM.
ALLOCATOR ?=
ALLOCATOR_ARG = $(if $(ALLOCATOR),-DVIREO_ALLOCATOR=$(ALLOCATOR))
# Unity builds for build/ and the sanitizer build (cmake/unity.cmake): about half the compile
# time, which is most of a fresh `make test` on two cores. A build dir is configured with them on
# unless `make UNITY=OFF`; later, empty keeps the build dir's choice and ON or OFF changes it.
UNITY     ?=
UNITY_ARG = $(if $(UNITY),-DCMAKE_UNITY_BUILD=$(UNITY))
UNITY_FIRST = -DCMAKE_UNITY_BUILD=$(or $(UNITY),ON)
# `make test` ends with the aarch64 and armhf cross builds' tests under qemu (test-all.sh);
# ARM_CHECK=0 leaves them out.
ARM_CHECK ?= 1

.PHONY: all build run test san test-arm test-armhf docker-rehearse asan asan-test tsan tsan-test \
        fuzz bench deps clean install

all: build

deps:
	@bash scripts/install-deps.sh

# Configure once (CMake re-runs itself when CMakeLists.txt changes), then build.
build:
	@test -f $(BUILD_DIR)/build.ninja || \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(ALLOCATOR_ARG) $(UNITY_FIRST)
	$(if $(ALLOCATOR)$(UNITY),cmake -S . -B $(BUILD_DIR) $(ALLOCATOR_ARG) $(UNITY_ARG) >/dev/null)
	ninja -C $(BUILD_DIR) -j$(JOBS)

run: deps build
	exec ./$(BUILD_DIR)/vireo-server --port $(PORT)

# Every test: Release and sanitizer builds, unit, integration, differential and fuzz tests; see
# scripts/test-all.sh for the order.
test: deps build
	BUILD_DIR=$(BUILD_DIR) FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) JOBS=$(JOBS) \
	  ARM_DIR=$(ARM_DIR) ARMHF_DIR=$(ARMHF_DIR) ARM_CHECK=$(ARM_CHECK) bash scripts/test-all.sh

# The sanitizer build: clang-14 with ASan + UBSan (alignment included, every report fatal) over
# everything, the libFuzzer targets included. One build serves the tests and the fuzzers.
san:
	@test -f $(FUZZ_DIR)/build.ninja || \
	  cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIREO_FUZZ=ON \
	    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 $(UNITY_FIRST)
	$(if $(UNITY),cmake -S . -B $(FUZZ_DIR) $(UNITY_ARG) >/dev/null)
	ninja -C $(FUZZ_DIR) -j$(JOBS)

# ARM: the cross build, its unit tests and a smoke test under qemu (scripts/arm-check.sh), for
# aarch64 and 32-bit armhf. `make test` ends with both (ARM_CHECK=0 leaves them out).
test-arm:
	@bash scripts/install-deps.sh arm
	ARM_DIR=$(ARM_DIR) JOBS=$(JOBS) bash scripts/arm-check.sh arm64

test-armhf:
	@bash scripts/install-deps.sh arm
	ARM_DIR=$(ARMHF_DIR) JOBS=$(JOBS) bash scripts/arm-check.sh armhf

# The Docker image without a Docker engine: the Dockerfile carried out in chroots of
# debootstrapped Debian, then the image run and checked (scripts/docker-rehearse.sh). Needs root
# and deb.debian.org; manual only, not part of `make test` (it downloads and builds everything).
docker-rehearse:
	bash scripts/docker-rehearse.sh

asan:
	@test -f $(ASAN_DIR)/build.ninja || \
	  cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIREO_SANITIZE=ON
	ninja -C $(ASAN_DIR) -j$(JOBS)

asan-test: deps asan
	cd $(ASAN_DIR) && ctest --output-on-failure -j$(JOBS)

# ThreadSanitizer build; tsan-test runs the integration suite on it with io-threads 4.
tsan:
	@test -f $(TSAN_DIR)/build.ninja || \
	  cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIREO_TSAN=ON
	ninja -C $(TSAN_DIR) -j$(JOBS)

tsan-test: deps tsan
	VIREO_SERVER=$(TSAN_DIR)/vireo-server VIREO_CLI=$(TSAN_DIR)/vireo-cli \
	  VIREO_BENCHMARK=$(TSAN_DIR)/vireo-benchmark VIREO_IO_THREADS=4 \
	  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/integration

# Runs the tests/fuzz/ targets of the sanitizer build; see scripts/fuzz.sh.
fuzz: deps san
	FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) bash scripts/fuzz.sh

bench: deps build
	bench/compare

# The binaries to $(PREFIX)/bin, vireo.conf (never over an existing one) and the systemd unit
# to $(PREFIX)/lib/systemd/system; DESTDIR stages the tree for packaging (deploy/install.cmake).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR) $(ARM_DIR) $(ARMHF_DIR)
