"""Reads in batches: after each poll every readable client is read, the keys of the next
commands of up to prefetch-batch-max-size clients are prefetched together, then their
commands run. Results must not depend on the batch size, and a client freed by an earlier
command of the same batch (CLIENT KILL) must be skipped safely."""
import itertools
import platform
import re
import shutil
import socket
import subprocess
import threading
import time

import pytest
import redis

from conftest import RawConnection

# Prefetch instructions as objdump prints them: x86's prefetcht0/prefetchw..., ARM's prfm.
_PREFETCH = re.compile(r"\t(prefetch\w*|prfm)\s")


def test_prefetch_batch_max_size_config(server):
    c = server.client()
    # Valkey 8.1's default and range.
    assert c.config_get("prefetch-batch-max-size") == {"prefetch-batch-max-size": "16"}
    for bad in ("-1", "129", "x"):
        with pytest.raises(redis.ResponseError):
            c.config_set("prefetch-batch-max-size", bad)
    assert c.config_set("prefetch-batch-max-size", 0)


@pytest.mark.parametrize("size", ["0", "2", "16"])
def test_many_clients_same_results_whatever_the_batch(start_server, size):
    s = start_server("--prefetch-batch-max-size", size)
    clients = 24
    per_client = 300

    def work(i):
        r = s.client()
        p = r.pipeline(transaction=False)
        for j in range(per_client):
            p.incr(f"counter:{j % 17}")
            p.set(f"k:{i}:{j}", j)
            p.get(f"k:{i}:{j}")
        out = p.execute()
        assert out[2::3] == [str(j) for j in range(per_client)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c = s.client()
    assert sum(int(c.get(f"counter:{k}")) for k in range(17)) == clients * per_client
    assert c.dbsize() == 17 + clients * per_client


def test_client_killed_by_an_earlier_command_of_the_batch(start_server):
    s = start_server("--prefetch-batch-max-size", "2")
    c = s.client()
    victims = []
    for _ in range(8):
        v = socket.create_connection(("127.0.0.1", s.port))
        v.sendall(b"CLIENT ID\r\n")
        victims.append((v, int(v.recv(64)[1:].strip())))
    killer = socket.create_connection(("127.0.0.1", s.port))
    kill = b"".join(b"*4\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$2\r\nID\r\n$%d\r\n%d\r\n"
                    % (len(str(i)), i) for _, i in victims)
    # The victims' commands and the killer's arrive together, many times over.
    for _ in range(20):
        for v, _ in victims:
            try:
                v.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n1\r\n")
            except OSError:
                pass
        killer.sendall(b"PING\r\n")
    killer.sendall(kill)
    data = b""
    while data.count(b"\r\n") < 20 + len(victims):
        chunk = killer.recv(65536)
        assert chunk
        data += chunk
    assert data.count(b"+PONG") == 20 and data.count(b":1\r\n") == len(victims)
    assert c.ping() and c.info("clients")["connected_clients"] == 2
    for v, _ in victims:
        v.close()
    killer.close()


def rehashing_bytes(c):
    return int(c.info("memory")["mem_overhead_db_hashtable_rehashing"])


def test_reads_alone_finish_a_keyspace_rehash(start_server):
    # Valkey moves a bucket of a running rehash on every lookup; Vireo moves as many buckets
    # after each turn as the turn ran commands. With activerehashing off, nothing else would
    # finish it under a read-only load.
    s = start_server("--activerehashing", "no", "--enable-debug-command", "yes")
    c = s.client()
    assert rehashing_bytes(c) == 0
    # Load 2: 4,096 buckets hold 8,192 keys; the next insert starts the grow to 8,192.
    c.execute_command("DEBUG", "POPULATE", 8193)
    before = rehashing_bytes(c)
    assert before == 4096 * 8
    time.sleep(0.3)  # several cron ticks: with activerehashing off they move nothing
    assert 0 < rehashing_bytes(c) <= before
    p = c.pipeline(transaction=False)
    for round_ in range(40):
        for i in range(200):
            p.get(f"key:{(round_ * 200 + i) % 8193}")
        p.execute()
        if rehashing_bytes(c) == 0:
            break
    assert rehashing_bytes(c) == 0
    assert c.dbsize() == 8193 and c.get("key:8192") == "value:8192"


def test_rehashing_overhead_is_counted_in_every_db(start_server):
    s = start_server("--activerehashing", "no", "--enable-debug-command", "yes")
    c = s.client()
    c.execute_command("DEBUG", "POPULATE", 8193)
    s.client(db=3).execute_command("DEBUG", "POPULATE", 8193)
    assert rehashing_bytes(c) == 2 * 4096 * 8  # the whole old array of each, until it is done


def _prefetches_by_function(binary):
    """Counts prefetch instructions per function (demangled name) in binary's code."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                         capture_output=True, text=True, check=True).stdout
    counts = {}
    function = ""
    for line in out.splitlines():
        head = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if head:
            function = head.group(1)
        elif _PREFETCH.search(line):
            counts[function] = counts.get(function, 0) + 1
    return counts


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils' objdump")
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="x86-64/ARM64 only")
def test_the_entry_prefetch_survives_the_optimizer(server_binary):
    # g++ inferred the keyspace's entry prefetch (HashTable::PrefetchChain: load a bucket slot,
    # prefetch the entry it names) free of effects and deleted every call to it, so a pipeline's
    # entries were never prefetched. Each stage must be in the code: as a function of its own
    # with its prefetch instructions, or inlined into the pipeline look-ahead.
    counts = _prefetches_by_function(server_binary)
    look_ahead = sum(n for f, n in counts.items() if "Server::ProcessInput" in f)
    for stage in ("PrefetchChain", "PrefetchPastHead"):
        own = any(stage in f for f in counts)
        assert own or look_ahead, f"no prefetch instruction for {stage}"


def test_a_long_pass_yields_to_the_other_clients_of_its_batch(start_server):
    """A read after a mid-size value takes up to 112 KB of a pipeline; the client's pass runs
    64 KB of it (Server::kPassBudget) when other clients are in the same batch, then theirs
    run, then it goes on in the next turn: two clients streaming 10 KB SETs take turns in
    groups of at most 7 commands (MONITOR shows the order they ran in), where each used to
    run every value its read brought (11) before the other's first. Every value lands."""
    s = start_server("--enable-debug-command", "yes", "--io-threads", "1")
    mon = s.raw()
    assert mon.call("MONITOR") == "OK"
    sleeper = s.raw()
    sleeper.send(RawConnection.encode("DEBUG", "SLEEP", "2"))
    time.sleep(0.2)
    n = 24
    values = {f"{name}{i}": bytes([97 + i]) * 10_000 for name in "ab" for i in range(n)}
    senders = []
    for name in "ab":
        conn = socket.create_connection(("127.0.0.1", s.port))
        data = b"".join(RawConnection.encode("SET", f"{name}{i}", values[f"{name}{i}"])
                        for i in range(n))
        t = threading.Thread(target=conn.sendall, args=(data,))
        t.start()
        senders.append((conn, t))
    for _, t in senders:
        t.join(timeout=1.5)  # sent, or the socket buffers are full: either way both wait
    assert sleeper.read_reply() == "OK"
    order = []
    while len(order) < 2 * n:
        line = mon.read_reply()
        m = re.search(r'"SET" "([ab])\d+"', line)
        if m:
            order.append(m.group(1))
    runs = [len(list(g)) for _, g in itertools.groupby(order)]
    # The first pass of each is short (its read of 16 KB ends inside its second value).
    assert max(runs) <= 8, order
    for conn, t in senders:
        t.join()
        got = b""
        while got.count(b"+OK\r\n") < n:
            chunk = conn.recv(65536)
            assert chunk
            got += chunk
        conn.close()
    c = s.client(decode_responses=False)
    for k, v in values.items():
        assert c.get(k) == v
