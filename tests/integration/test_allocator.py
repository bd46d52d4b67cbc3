"""INFO memory's mem_allocator names the allocator the build chose (CMake's VIREO_ALLOCATOR,
which ctest passes in the environment: jemalloc on x86-64, libc on ARM or when asked), and
used_memory follows the data with either allocator."""

import os
import re

import pytest

from conftest import wait_for


def test_mem_allocator_matches_the_build(sr):
    name = sr.info("memory")["mem_allocator"]
    # Valkey's spelling: "jemalloc-5.3.0" or "libc".
    assert re.fullmatch(r"jemalloc-\d+\.\d+\.\d+|libc", name)
    built = os.environ.get("VIREO_ALLOCATOR")
    if not built:
        pytest.skip("VIREO_ALLOCATOR is set by ctest; run through it to check the build")
    assert name.split("-")[0] == built


def test_used_memory_follows_the_data(sr):
    before = sr.info("memory")["used_memory"]
    if before == 0:
        pytest.skip("sanitizer build: the libc statistics read 0")
    pipe = sr.pipeline(transaction=False)
    for i in range(2000):
        pipe.set(f"alloc:{i}", "x" * 1000)
    pipe.execute()
    grown = sr.info("memory")["used_memory"]
    assert grown - before >= 2000 * 1000
    sr.flushall()
    # Allocator caches may keep a few freed blocks counted; most of the 2 MB must be gone. The
    # reading may lag the frees (per-thread counters, background frees): polled, not timed.
    assert wait_for(lambda: sr.info("memory")["used_memory"] < grown - 1500 * 1000)


def test_used_memory_sees_frees_on_the_lazy_free_thread(sr):
    """UNLINK hands a big value to the lazy-free thread: its frees must reach used_memory (with
    libc, through that thread's own counters, which the per-command gauge does not read)."""
    if sr.info("memory")["used_memory"] == 0:
        pytest.skip("sanitizer build: the libc statistics read 0")
    fields = {f"f{j}": "v" * 200 for j in range(5000)}  # a table: freed in the background
    sr.hset("alloc:big", mapping=fields)
    grown = sr.info("memory")["used_memory"]
    lazy_before = sr.info("memory")["lazyfreed_objects"]
    assert sr.unlink("alloc:big") == 1
    assert wait_for(lambda: sr.info("memory")["lazyfreed_objects"] > lazy_before)
    assert wait_for(lambda: sr.info("memory")["used_memory"] < grown - 5000 * 200)
