"""Helpers shared by the cluster tests (test_cluster*.py, test_cli_cluster.py): start
cluster-enabled nodes, create a cluster with a --cluster tool, clients and small queries."""

import subprocess
import threading

from redis.cluster import ClusterNode, RedisCluster

from conftest import REDIS_CLI, built_binary, free_port, wait_for

VIREO_CLI = built_binary("VIREO_CLI", "vireo-cli")
NODE_TIMEOUT = 1000


def start_nodes(start_server, count, password=None, extra=()):
    """Cluster-enabled nodes with a short node timeout; the bus port is picked free too (port
    + 10000 may be out of range for an ephemeral port)."""
    nodes = []
    for _ in range(count):
        args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(NODE_TIMEOUT), "--cluster-port", str(free_port()),
                *extra]
        if password:
            args += ["--requirepass", password, "--masterauth", password]
        nodes.append(start_server(*args))
    return nodes


def client(node, password=None):
    return node.client(password=password) if password else node.client()


def run_cli(cli, args, password=None, timeout=120, input=None):
    """Runs `cli --cluster <args>` (with -a password); returns the CompletedProcess (text)."""
    cmd = [cli, "--cluster", *map(str, args)]
    if password:
        cmd += ["-a", password, "--no-auth-warning"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input)


def wait_state_ok(nodes, password=None, timeout=10.0):
    for n in nodes:
        c = client(n, password)
        wait_for(lambda: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"),
                 timeout=timeout)


def create(nodes, replicas=0, password=None, cli=REDIS_CLI):
    """`cli --cluster create` over the nodes; waits until every node sees the cluster ok."""
    out = run_cli(cli, ["create", *[f"127.0.0.1:{n.port}" for n in nodes],
                        "--cluster-replicas", replicas, "--cluster-yes"], password, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[OK] All 16384 slots covered." in out.stdout
    wait_state_ok(nodes, password)
    return out.stdout


def cluster_client(nodes, password=None):
    return RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in nodes],
                        password=password, decode_responses=True)


def node_role(node, password=None):
    return client(node, password).execute_command("ROLE")[0]


def node_id(node, password=None):
    return client(node, password).execute_command("CLUSTER", "MYID")


def my_slots(c):
    """The slots the node behind client c serves, from its CLUSTER NODES."""
    mine = set()
    for line in c.execute_command("CLUSTER", "NODES").splitlines():
        if "myself" not in line:
            continue
        for r in line.split()[8:]:
            if r.startswith("["):
                continue  # an open slot: [slot->-id] / [slot-<-id]
            a, _, b = r.partition("-")
            mine.update(range(int(a), int(b or a) + 1))
    return mine


def owned(c, slot):
    return slot in my_slots(c)


class WriteLoad:
    """`with WriteLoad(nodes) as load:` SETs key:N through a cluster client on a thread until
    the block ends; load.written holds what was acknowledged, load.errors what failed. The
    block starts once the first SET has been answered: making the cluster client takes a
    while, and a short block (a reshard of 150 slots) could end before any write."""

    def __init__(self, nodes):
        self.written, self.errors = {}, []
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(nodes,))

    def __enter__(self):
        self._thread.start()
        self._first.wait(timeout=30)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self, nodes):
        w = cluster_client(nodes)
        i = 0
        while not self._stop.is_set():
            try:
                w.set(f"key:{i}", i)
                self.written[f"key:{i}"] = str(i)
            except Exception as exc:  # noqa: BLE001 - the test reports them
                self.errors.append(repr(exc))
            self._first.set()
            i += 1
