"""INFO memory's mem_allocator names the allocator the build chose (CMake's VIREO_ALLOCATOR,
which ctest passes in the environment: jemalloc on x86-64, libc on ARM or when asked), and
used_memory follows the data with either allocator."""

import os
import re
import time

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


def test_used_memory_follows_the_data(start_server):
    # A server of its own: on the shared one, buffers that earlier tests' big replies left
    # behind can be freed during the writes and hide part of the growth.
    sr = start_server().client()
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


def _anon_huge_kb(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


def _advised_kb(pid):
    """Size of the mappings advised MADV_HUGEPAGE (VmFlags "hg")."""
    total = size = 0
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):
                lo, hi = line.split()[0].split("-")
                size = (int(hi, 16) - int(lo, 16)) // 1024
            elif line.startswith("VmFlags:") and " hg" in line:
                total += size
    return total


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read()
    except OSError:
        return None


def test_the_keyspace_stays_on_ordinary_pages_and_an_idle_server_has_no_huge_pages(start_server):
    """Only large values (and the bucket array) are advised huge pages (store/memory.h,
    UseValueArena): an idle server gains none, and a keyspace of small keys stays on jemalloc's
    ordinary arenas, unadvised, however large it grows."""
    mode = _thp_mode()
    if mode is None:
        pytest.skip("no transparent huge pages here")
    if "[never]" in mode:
        pytest.skip("transparent huge pages are off here")
    s = start_server("--enable-debug-command", "yes")
    r = s.client()
    if not r.info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("the arenas are jemalloc's")
    pid = r.info("server")["process_id"]
    r.set("a", "b")
    assert r.get("a") == "b"
    r.info()
    if "[madvise]" in mode:  # with "always" every mapping may get them
        assert _anon_huge_kb(pid) == 0
    r.execute_command("DEBUG", "POPULATE", "1000000", "key", "3")
    assert r.dbsize() == 1000001
    # The 8 MB bucket array is advised: not the ~35 MB the keys took.
    assert _advised_kb(pid) <= 12 * 1024
    # Nor are the keys collapsed into huge pages once quiet (as they were until 2026-12-04,
    # 2 s after the keyspace stopped growing).
    time.sleep(4)
    if "[madvise]" in mode:
        assert _anon_huge_kb(pid) <= 12 * 1024
    assert r.get("key:999999") == "val"


def _fill_values(r, count=2000, size=16384):
    pipe = r.pipeline(transaction=False)
    for i in range(count):
        pipe.set(f"big:{i}", "v" * size)
    pipe.execute()


def _values_arena_server(start_server):
    """A client of a fresh server with a values' arena (jemalloc, huge pages on), and its pid."""
    mode = _thp_mode()
    if mode is None or "[never]" in mode:
        pytest.skip("transparent huge pages are off here")
    r = start_server().client()
    if not r.info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("the arenas are jemalloc's")
    return r, r.info("server")["process_id"]


def test_large_values_get_huge_pages_as_they_grow(start_server):
    """Values of 1 KB and more come from an arena of their own, advised as it maps memory past
    its first 4 MiB, however fast it grows (store/memory.h, ZMallocValue): 32 MB of 16 KB
    values written at full speed are on advised memory at once, unlike the small keys of the
    test above."""
    r, pid = _values_arena_server(start_server)
    before = _advised_kb(pid)
    _fill_values(r)
    assert _advised_kb(pid) - before >= 16 * 1024
    assert r.get("big:1999") == "v" * 16384


def test_freed_values_leave_huge_pages_whole_until_all_of_one_is_free(start_server):
    """Freed large values are given back only as whole huge pages (store/held_pages.h): a
    purge after every other 16 KB value is overwritten by a small one splits none of the
    values' huge pages (a split process read at a third of its speed on these machines), and
    once everything is freed the memory goes back all the same."""
    r, pid = _values_arena_server(start_server)
    _fill_values(r, count=6000)
    huge = _anon_huge_kb(pid)
    if huge < 32 * 1024:
        pytest.skip(f"the kernel gave only {huge} kB of huge pages")
    pipe = r.pipeline(transaction=False)
    for i in range(0, 6000, 2):
        pipe.set(f"big:{i}", "small")
    pipe.execute()
    assert r.execute_command("MEMORY", "PURGE") == "OK"
    assert _anon_huge_kb(pid) >= huge - 4 * 1024  # (splitting: all but a few MB went)
    # About 48 MB is held: resident, though jemalloc counts it as given back. INFO counts it
    # in allocator_resident, so rss_overhead does not grow by it.
    mem = r.info("memory")
    assert mem["used_memory_rss"] - mem["allocator_resident"] < 24 * 1024 * 1024
    assert r.get("big:1") == "v" * 16384 and r.get("big:0") == "small"
    # The held pages are handed out again for new values (zeroed first, as jemalloc expects).
    _fill_values(r, count=3000, size=12000)
    assert r.get("big:2999") == "v" * 12000 and r.get("big:3001") == "v" * 16384
    rss = r.info("memory")["used_memory_rss"]
    r.flushall()

    def given_back():  # (the flush's frees reach the arena within a second or so)
        r.execute_command("MEMORY", "PURGE")
        return (_anon_huge_kb(pid) <= huge - 96 * 1024 and
                r.info("memory")["used_memory_rss"] < rss - 96 * 1024 * 1024)

    wait_for(given_back, timeout=30)


def test_one_arena_where_huge_pages_are_off(start_server, no_thp_server_binary):
    """A server started with huge pages turned off for its process (prctl PR_SET_THP_DISABLE,
    as bench/growth's "never" runs) keeps large values with everything else: an arena apart
    would only cost locality (an entry and its value then share page tables). Nothing of its
    data is advised."""
    r = start_server(binary=no_thp_server_binary).client()
    if not r.info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("the arenas are jemalloc's")
    _fill_values(r)
    assert _advised_kb(r.info("server")["process_id"]) == 0
    assert r.get("big:0") == "v" * 16384


def test_allocator_fields_add_up(sr):
    """INFO memory's allocator_* and rss_overhead_* fields, as Valkey derives them from
    jemalloc's allocated <= active <= resident; all 0 with libc."""
    mem = sr.info("memory")
    allocated, active, resident = (mem["allocator_allocated"], mem["allocator_active"],
                                   mem["allocator_resident"])
    if mem["mem_allocator"] == "libc":
        assert allocated == active == resident == 0
        return
    assert 0 < allocated <= active <= resident
    assert mem["allocator_frag_bytes"] == active - allocated
    assert mem["allocator_rss_bytes"] == resident - active
    assert mem["allocator_frag_ratio"] == pytest.approx(active / allocated, abs=0.01)
    assert mem["allocator_rss_ratio"] == pytest.approx(resident / active, abs=0.01)
    assert mem["rss_overhead_bytes"] == mem["used_memory_rss"] - resident
