"""vireo-cli --cluster reshard / rebalance through atomic slot migration (CLUSTER MIGRATESLOTS):
transactions on the moving slots never see ASK, TRYAGAIN or CROSSSLOT and nothing acknowledged
is lost; a migration that fails midway (a primary killed, its link dropped, a cancel) stops the
tool with the job's error and leaves a consistent cluster; servers without atomic migration
(valkey-server 8.0.1) get the key-by-key moves."""

import os
import re
import subprocess
import tempfile
import threading
import time

import pytest
import redis

from cluster_helpers import (VIREO_CLI, client, cluster_client, create, my_slots, node_id,
                             run_cli, start_nodes, wait_state_ok)
from conftest import VALKEY_SERVER, free_port, wait_for

FORBIDDEN = ("ASK", "TRYAGAIN", "CROSSSLOT")


def crc16(data):
    """CRC16-CCITT (XMODEM), the hash of cluster key slots."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def tag_slot(tag):
    return crc16(tag.encode()) % 16384


def key_slot(key):
    start = key.find("{")
    end = key.find("}", start + 1)
    return tag_slot(key[start + 1:end] if 0 <= start < end - 1 else key)


def tags_in(slots, count):
    """count hash tags whose slots are in `slots`, spread over them."""
    wanted, tags, i = set(slots), [], 0
    seen = set()
    while len(tags) < count:
        tag = f"t{i}"
        s = tag_slot(tag)
        if s in wanted and s not in seen:
            tags.append(tag)
            seen.add(s)
        i += 1
    return tags


def migrations(node):
    out = []
    for entry in client(node).execute_command("CLUSTER", "GETSLOTMIGRATIONS"):
        out.append(dict(zip(entry[::2], entry[1::2])) if isinstance(entry, list) else entry)
    return out


def debug(nodes, what, value):
    for n in nodes:
        client(n).execute_command("DEBUG", "SLOTMIGRATION", what, value)


def role(node):
    return client(node).execute_command("ROLE")


class Cluster:
    """Three primaries with a replica each; primaries ordered by their first slot, so the
    source (primaries[0]) serves 0-5460 and the target (primaries[1]) 5461-10922."""

    def __init__(self, start_server):
        self.nodes = start_nodes(start_server, 6, extra=("--enable-debug-command", "yes"))
        create(self.nodes, replicas=1)
        masters = [n for n in self.nodes if role(n)[0] == "master"]
        masters.sort(key=lambda n: min(my_slots(client(n))))
        self.primaries = masters
        self.replica_of = {role(n)[2]: n for n in self.nodes if role(n)[0] == "slave"}
        # Replicas attached, so WAIT 1 can be answered.
        wait_for(lambda: all(role(p)[2] for p in masters), timeout=30)

    def reshard_args(self, source, target, slots):
        return ["reshard", f"127.0.0.1:{target.port}", "--cluster-from", node_id(source),
                "--cluster-to", node_id(target), "--cluster-slots", slots, "--cluster-yes"]

    def live(self):
        return [n for n in self.nodes if n.is_alive()]


def preload(node, tags, per_tag):
    """SETs {tag}:pre:N on node (it owns the tags' slots), replicated before it returns."""
    c = client(node)
    written = {}
    pipe = c.pipeline(transaction=False)
    for tag in tags:
        for i in range(per_tag):
            key = f"{{{tag}}}:pre:{i}"
            pipe.set(key, f"p{i}")
            written[key] = f"p{i}"
    pipe.execute_command("WAIT", 1, 10000)  # on the writes' connection
    assert pipe.execute()[-1] == 1
    return written


class TxLoad:
    """`with TxLoad(nodes, tags, durable) as load:` a writer thread runs MULTI / SET / SET / EXEC
    of two fresh keys under one hash tag and a reader thread MULTI / GET / GET / EXEC of an
    acknowledged pair, both through plain clients that follow MOVED by hand (redis-py's
    RedisCluster refuses transactions). load.acked: key -> value of every acknowledged write
    (with durable, only once WAIT 1 saw a replica take it, where the primary has one: a killed
    primary's replica then has it); load.forbidden: ASK / TRYAGAIN / CROSSSLOT replies;
    load.wrong: reads that missed an acknowledged write; load.other: anything else
    (connections lost while a primary dies)."""

    def __init__(self, nodes, tags, durable=False):
        self.ports = [n.port for n in nodes]
        self.tags = tags
        self.durable = durable
        self.acked, self.pairs = {}, []
        self.forbidden, self.wrong, self.other = [], [], []
        self.writes = self.reads = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._writer),
                         threading.Thread(target=self._reader)]

    def __enter__(self):
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        self._stop.set()
        for t in self._threads:
            t.join()

    def _transaction(self, route, conns, tag, commands):
        """EXEC's reply for `commands` on the node serving tag, and the connection used;
        (None, None) once stopped."""
        turn = 0
        while not self._stop.is_set():
            port = route.get(tag, self.ports[turn % len(self.ports)])
            try:
                c = conns.get(port)
                if c is None:
                    c = conns[port] = redis.Redis(host="127.0.0.1", port=port,
                                                  decode_responses=True, socket_timeout=30,
                                                  single_connection_client=True)
                c.execute_command("MULTI")
                try:
                    for cmd in commands:
                        c.execute_command(*cmd)
                except redis.ResponseError:
                    c.execute_command("DISCARD")
                    raise
                return c.execute_command("EXEC"), c
            except redis.ResponseError as exc:
                text = str(exc)
                moved = re.search(r"MOVED \d+ [^\s:]+:(\d+)", text)
                if moved:
                    route[tag] = int(moved.group(1))
                    continue
                if any(re.search(rf"\b{word}\b", text) for word in FORBIDDEN):
                    self.forbidden.append(text)
                else:
                    self.other.append(text)
                time.sleep(0.05)
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self.other.append(repr(exc))
                if port in conns:
                    conns.pop(port).close()
                route.pop(tag, None)
                turn += 1
                time.sleep(0.05)
        return None, None

    def _writer(self):
        route, conns, i = {}, {}, 0
        while not self._stop.is_set():
            tag = self.tags[i % len(self.tags)]
            a, b = f"{{{tag}}}:a:{i}", f"{{{tag}}}:b:{i}"
            reply, c = self._transaction(route, conns, tag, [("SET", a, i), ("SET", b, i)])
            if reply is None:
                break
            try:
                # A primary without replicas (a promoted one whose primary was killed) is the
                # only copy there is.
                if (self.durable and c.execute_command("ROLE")[2] and
                        c.execute_command("WAIT", 1, 5000) != 1):
                    i += 1
                    continue
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self.other.append(repr(exc))
                i += 1
                continue
            self.acked[a] = self.acked[b] = str(i)
            self.pairs.append((tag, i))
            self.writes += 1
            i += 1

    def _reader(self):
        route, conns, n = {}, {}, 0
        while not self._stop.is_set():
            if not self.pairs:
                time.sleep(0.01)
                continue
            # Mostly the newest writes, now and then an old one.
            count = len(self.pairs)
            tag, i = self.pairs[count - 1 - min(n % 7, count - 1) if n % 3 else
                                (n * 7919) % count]
            a, b = f"{{{tag}}}:a:{i}", f"{{{tag}}}:b:{i}"
            reply, _ = self._transaction(route, conns, tag, [("GET", a), ("GET", b)])
            if reply is None:
                break
            if reply != [str(i), str(i)]:
                self.wrong.append((a, b, reply))
            self.reads += 1
            n += 1


class BackgroundCli:
    """vireo-cli --cluster <args> running while the test goes on; its output goes to files (a
    pipe nobody reads would fill and stall it)."""

    def __init__(self, args):
        self._out, self._err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
        self._proc = subprocess.Popen([VIREO_CLI, "--cluster", *map(str, args)],
                                      stdout=self._out, stderr=self._err, text=True)
        self.returncode = None

    def wait(self, timeout=120):
        """(stdout, stderr) once it exited."""
        self.returncode = self._proc.wait(timeout=timeout)
        self._out.seek(0)
        self._err.seek(0)
        return self._out.read(), self._err.read()

    def kill(self):
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


def wait_progress(load, writes=20, reads=20, timeout=60):
    w, r = load.writes, load.reads
    try:
        wait_for(lambda: load.writes >= w + writes and load.reads >= r + reads, timeout=timeout)
    except AssertionError:
        raise AssertionError(f"writes {w} -> {load.writes}, reads {r} -> {load.reads}, "
                             f"errors {load.other[-5:]} {load.forbidden[-5:]}") from None


def prepare(cl, moving_tags, staying_tags, per_tag):
    """(the source's slots, half their count, tags, preloaded keys): tags in the half the
    reshard moves (the plan takes a source's lowest slots) and in the other half, per_tag keys
    under each; every node then holds its jobs before the hand-off."""
    source_slots = sorted(my_slots(client(cl.primaries[0])))
    half = len(source_slots) // 2
    tags = tags_in(source_slots[:half], moving_tags) + tags_in(source_slots[half:], staying_tags)
    before = preload(cl.primaries[0], tags, per_tag)
    debug(cl.nodes, "PREVENT-PAUSE", 1)
    return source_slots, half, tags, before


def start_held_reshard(cl, load, slots):
    """Starts the reshard of `slots` slots from the source to the target; returns once the job
    waits before its hand-off and transactions ran meanwhile (the target then holds the
    snapshot and the writes streamed since)."""
    wait_progress(load)
    cli = BackgroundCli(cl.reshard_args(cl.primaries[0], cl.primaries[1], slots))
    try:
        wait_for(lambda: any(m["state"] == "waiting-to-pause"
                             for m in migrations(cl.primaries[0])), timeout=60)
        wait_progress(load)
    except BaseException:
        cli.kill()
        raise
    return cli


def check(node):
    return run_cli(VIREO_CLI, ["check", f"127.0.0.1:{node.port}"])


def check_is_clean(out):
    return (out.returncode == 0 and "[OK] All 16384 slots covered." in out.stdout and
            "[OK] All nodes agree about slots configuration." in out.stdout and
            "[WARNING]" not in out.stdout and "[ERR]" not in out.stdout)


def assert_check_clean(node):
    # Gossip may still be spreading a failover's new epoch: poll, then show the last output.
    try:
        wait_for(lambda: check_is_clean(check(node)), timeout=30)
    except AssertionError:
        out = check(node)
        raise AssertionError(out.stdout + out.stderr) from None


def cluster_contents(primaries, strict=True):
    """Every key of the primaries with its value; each key on the primary that serves its slot
    and on no other (without strict, keys in slots their node does not serve are left out)."""
    contents = {}
    for p in primaries:
        c = client(p)
        mine = my_slots(c)
        for key in c.scan_iter(count=1000):
            slot = key_slot(key)
            if not strict and slot not in mine:
                continue
            assert slot in mine, f"{key} (slot {slot}) on {p.port}, which does not serve it"
            assert key not in contents, f"{key} on two primaries"
            contents[key] = c.get(key)
    return contents


def digest_of(start_server, items):
    """DEBUG DIGEST of a standalone server holding the string keys of items."""
    s = start_server("--enable-debug-command", "yes")
    c = s.client()
    pipe = c.pipeline(transaction=False)
    for key, value in items.items():
        pipe.set(key, value)
    pipe.execute()
    return c.execute_command("DEBUG", "DIGEST")


def assert_readable(nodes, acked):
    rc = cluster_client(nodes)
    keys = list(acked)
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        values = [rc.get(k) for k in chunk]
        missing = [(k, acked[k], v) for k, v in zip(chunk, values) if v != acked[k]]
        assert not missing, missing[:5]


def test_reshard_moves_half_the_slots_atomically_under_transactions(start_server):
    cl = Cluster(start_server)
    src, dst, other = cl.primaries
    source_slots, half, tags, before = prepare(cl, 24, 6, 100)
    moving = source_slots[:half]
    with TxLoad(cl.nodes, tags) as load:
        cli = start_held_reshard(cl, load, half)
        try:
            debug(cl.nodes, "PREVENT-PAUSE", 0)
            out, err = cli.wait()
        finally:
            cli.kill()
        # And after the hand-off, on the new owner.
        wait_progress(load)
    assert cli.returncode == 0, out[-3000:] + err
    assert err == ""
    # The plan's lines, then one "Moving slot" line per slot, as the key-by-key moves print.
    assert out.count("    Moving slot ") == half
    assert out.count("Moving slot ") == 2 * half
    assert f"Moving slot 0 from 127.0.0.1:{src.port} to 127.0.0.1:{dst.port}: \n" in out
    jobs = migrations(src)
    assert [(m["operation"], m["slot_ranges"], m["state"]) for m in jobs] == \
        [("EXPORT", f"{moving[0]}-{moving[-1]}", "success")], jobs
    assert not load.forbidden, load.forbidden[:5]
    assert not load.wrong, load.wrong[:5]
    assert not load.other, load.other[:5]
    assert load.writes > 0 and load.reads > 0
    assert_check_clean(other)
    assert len(my_slots(client(src))) == len(source_slots) - half
    assert set(moving) <= my_slots(client(dst))
    # The dataset is what was acknowledged: the same keys and values, and the same digest as
    # a standalone server that replays the acknowledged writes.
    expected = {**before, **load.acked}
    contents = cluster_contents(cl.primaries)
    assert contents == expected, (set(contents) ^ set(expected))
    assert digest_of(start_server, contents) == digest_of(start_server, expected)

    # rebalance takes the slots back the same way (valkey-cli 9.0's flag changes nothing here).
    out = run_cli(VIREO_CLI, ["rebalance", f"127.0.0.1:{other.port}",
                              "--cluster-use-atomic-slot-migration"], timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert ">>> Rebalancing across 3 nodes." in out.stdout
    jobs = migrations(dst)
    assert [m["operation"] for m in jobs].count("EXPORT") >= 1, jobs
    assert all(m["state"] == "success" for m in jobs), jobs
    assert_check_clean(src)
    assert cluster_contents(cl.primaries) == expected


FAILURES = ["target-killed", "source-killed", "link-dropped-on-target",
            "link-dropped-on-source", "cancelled"]


def kill_migration_link(node, flag):
    c = client(node)
    ids = [e["id"] for e in c.client_list() if flag in e["flags"]]
    assert ids, c.client_list()
    for i in ids:
        c.execute_command("CLIENT", "KILL", "ID", i)


@pytest.mark.parametrize("failure", FAILURES)
def test_reshard_failure_mid_migration_leaves_a_consistent_cluster(start_server, failure):
    cl = Cluster(start_server)
    src, dst, other = cl.primaries
    source_slots, half, tags, before = prepare(cl, 16, 4, 50)
    killed = None
    with TxLoad(cl.nodes, tags, durable=True) as load:
        cli = start_held_reshard(cl, load, half)
        try:
            if failure == "target-killed":
                killed = dst
                dst.kill()
            elif failure == "source-killed":
                killed = src
                src.kill()
            elif failure == "link-dropped-on-target":
                kill_migration_link(dst, "i")
            elif failure == "link-dropped-on-source":
                kill_migration_link(src, "E")
            else:
                assert client(src).execute_command("CLUSTER", "CANCELSLOTMIGRATIONS") == "OK"
            debug(cl.live(), "PREVENT-PAUSE", 0)
            out, err = cli.wait()
        finally:
            cli.kill()
        if killed is not None:
            replica = cl.replica_of[killed.port]
            wait_for(lambda: role(replica)[0] == "master", timeout=60)
            wait_state_ok(cl.live(), timeout=60)
        # Writes go on where the cluster now serves the slots.
        wait_progress(load)
    # The tool stops with the job's error, as the key-by-key moves stop on theirs.
    assert cli.returncode != 0, out[-3000:]
    assert "clusterManagerMoveSlot failed: " in out, out[-3000:]
    reason = out.split("clusterManagerMoveSlot failed: ", 1)[1]
    if failure == "source-killed":
        assert reason.startswith(f"lost the connection to 127.0.0.1:{src.port}"), reason
    elif failure == "cancelled":
        assert " cancelled: Cancelled by CLUSTER CANCELSLOTMIGRATIONS" in reason, reason
    elif failure == "target-killed":
        assert " failed: Connection lost to target" in reason, reason
    else:
        assert " failed: Connection lost to " in reason, reason
    assert not load.forbidden, load.forbidden[:5]
    assert not load.wrong, load.wrong[:5]
    live = cl.live()
    primaries = [n for n in live if role(n)[0] == "master"]
    assert len(primaries) == 3
    assert_check_clean(next(n for n in live if n is not killed))
    # Nothing moved: whoever serves the source's shard now serves all its slots.
    owner = src if killed is not src else cl.replica_of[src.port]
    assert my_slots(client(owner)) == set(source_slots)
    expected = {**before, **load.acked}
    assert_readable(live, expected)
    # No key stayed behind where its slot is not served (the target's partial import, also on
    # a promoted replica of the target).
    contents = cluster_contents(primaries)
    assert all(contents[k] == v for k, v in expected.items())
    if killed is None:
        # Nothing was lost in flight: the dataset is exactly a replay of the acknowledged
        # writes, digest included.
        assert contents == expected, set(contents) ^ set(expected)
        assert digest_of(start_server, contents) == digest_of(start_server, expected)


@pytest.mark.skipif(not os.path.exists(VALKEY_SERVER),
                    reason="needs the reference valkey-server in ../shared/reference/")
def test_servers_without_atomic_migration_get_key_by_key_moves(start_server):
    """valkey-server 8.0.1 answers COMMAND INFO CLUSTER|MIGRATESLOTS with nil: the moves are
    MIGRATE key by key; with --cluster-use-atomic-slot-migration the tool tries MIGRATESLOTS,
    warns and falls back."""
    nodes = [start_server("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--cluster-node-timeout", "1000", "--cluster-port", str(free_port()),
                          binary=VALKEY_SERVER) for _ in range(3)]
    create(nodes, cli=VIREO_CLI)
    src, dst, _ = sorted(nodes, key=lambda n: min(my_slots(client(n))))
    c = client(src)
    written = {f"{{{tag}}}:k:{i}": str(i)
               for tag in tags_in(range(0, 10), 3) + tags_in(range(10, 20), 3) for i in range(20)}
    for key, value in written.items():
        c.set(key, value)
    for flags in ([], ["--cluster-use-atomic-slot-migration"]):
        out = run_cli(VIREO_CLI, ["reshard", f"127.0.0.1:{src.port}", "--cluster-from",
                                  node_id(src), "--cluster-to", node_id(dst), "--cluster-slots",
                                  10, "--cluster-yes", *flags], timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        warned = "does not support atomic slot migration, moving keys one by one" in out.stdout
        assert warned == bool(flags), out.stdout
        # Key-by-key moves print a dot per key.
        assert re.search(r"Moving slot \d+ from \S+ to \S+: \.+\n", out.stdout), out.stdout
    assert set(range(20)) <= my_slots(client(dst))
    assert client(dst).dbsize() == len(written)
    assert_readable(nodes, written)


def test_promoted_replica_of_an_import_target_keeps_no_keys_of_the_failed_import(start_server):
    cl = Cluster(start_server)
    src, dst, _ = cl.primaries
    replica = cl.replica_of[dst.port]
    tag = tags_in([0], 1)[0]
    client(src).mset({f"{{{tag}}}:{i}": i for i in range(100)})
    debug(cl.nodes, "PREVENT-PAUSE", 1)
    client(src).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", 0, 0, "NODE",
                                node_id(dst))
    wait_for(lambda: migrations(src)[0]["state"] == "waiting-to-pause")
    wait_for(lambda: client(replica).execute_command("CLUSTER", "COUNTKEYSINSLOT", 0) == 100)
    dst.kill()
    wait_for(lambda: role(replica)[0] == "master", timeout=60)
    wait_for(lambda: migrations(src)[0]["state"] == "failed")
    debug(cl.live(), "PREVENT-PAUSE", 0)
    assert 0 not in my_slots(client(replica))
    # The failed import's keys leave the new primary, which never served slot 0.
    wait_for(lambda: client(replica).execute_command("CLUSTER", "COUNTKEYSINSLOT", 0) == 0,
             timeout=5)
    assert client(replica).dbsize() == 0
