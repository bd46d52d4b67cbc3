"""A network partition that isolates a primary, with Linux network namespaces: six nodes (three
primaries, three replicas), each in its own namespace with an address on a private subnet that
exists only inside the namespaces, all joined by veth pairs to a bridge in a seventh namespace.
Cutting one primary's link: the minority primary refuses writes (CLUSTERDOWN) once the node
timeout passes, the majority promotes its replica; healing the link: the old primary rejoins as
a replica of its successor. Skipped when namespaces cannot be made (not root, no iproute2)."""

import os
import shutil
import subprocess

import pytest

from cluster_helpers import NODE_TIMEOUT, VIREO_CLI
from conftest import REDIS_CLI, wait_for

SUBNET = "10.213.7"  # inside the test's namespaces only
NODES = 6


def sh(*args, check=True):
    return subprocess.run(list(args), capture_output=True, text=True, check=check, timeout=30)


class NetLab:
    """Namespaces <tag>n<i> (one per node, address SUBNET.<i+1>) and <tag>b with the bridge."""

    def __init__(self, tag, count):
        self.tag = tag
        self.bridge = f"{tag}b"
        self.ns = [f"{tag}n{i}" for i in range(count)]
        self.addr = [f"{SUBNET}.{i + 1}" for i in range(count)]
        self.made = []

    def build(self):
        sh("ip", "netns", "add", self.bridge)
        self.made.append(self.bridge)
        sh("ip", "-n", self.bridge, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.bridge, "link", "set", "br0", "up")
        for i, ns in enumerate(self.ns):
            sh("ip", "netns", "add", ns)
            self.made.append(ns)
            # The pair is made inside the bridge namespace, one end moved to the node's: the
            # host's own network is never touched.
            sh("ip", "-n", self.bridge, "link", "add", self.port(i), "type", "veth", "peer",
               "name", "eth0", "netns", ns)
            sh("ip", "-n", self.bridge, "link", "set", self.port(i), "master", "br0")
            sh("ip", "-n", self.bridge, "link", "set", self.port(i), "up")
            sh("ip", "-n", ns, "addr", "add", f"{self.addr[i]}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")

    def port(self, i):
        return f"p{i}"

    def cut(self, i):
        sh("ip", "-n", self.bridge, "link", "set", self.port(i), "down")

    def heal(self, i):
        sh("ip", "-n", self.bridge, "link", "set", self.port(i), "up")

    def destroy(self):
        for ns in reversed(self.made):
            sh("ip", "netns", "del", ns, check=False)
        self.made.clear()


@pytest.fixture
def netlab():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2")
    lab = NetLab(f"vc{os.getpid() % 100000}", NODES)
    try:
        lab.build()
    except subprocess.CalledProcessError as e:
        lab.destroy()
        pytest.skip(f"cannot make network namespaces: {e.stderr.strip()}")
    try:
        yield lab
    finally:
        lab.destroy()


class NsNode:
    """A server running in namespace ns; queried with redis-cli from inside it."""

    def __init__(self, start_server, server, tmp_path, lab, i, port):
        self.ns, self.ip, self.port = lab.ns[i], lab.addr[i], port
        wrapper = tmp_path / f"in-{self.ns}.sh"
        wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {self.ns} {server} "$@"\n')
        wrapper.chmod(0o755)
        # Protected mode would refuse the peers: the subnet exists only in the namespaces.
        self.proc = start_server("--port", port, "--bind", self.ip, "--protected-mode", "no",
                                 "--cluster-enabled", "yes",
                                 "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", NODE_TIMEOUT, binary=str(wrapper),
                                 wait=False)
        wait_for(lambda: self.call("PING") == "PONG")

    def call(self, *args):
        out = subprocess.run(["ip", "netns", "exec", self.ns, REDIS_CLI, "-h", self.ip, "-p",
                              str(self.port), *map(str, args)],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip()

    def role(self):
        return self.call("ROLE").splitlines()

    def state_ok(self):
        return "cluster_state:ok" in self.call("CLUSTER", "INFO")


def test_partition_isolating_a_primary(netlab, start_server, server_binary, tmp_path):
    port = 20000 + os.getpid() % 20000  # each node has its namespace: no clash possible
    nodes = [NsNode(start_server, server_binary, tmp_path, netlab, i, port)
             for i in range(NODES)]
    create = subprocess.run(
        ["ip", "netns", "exec", nodes[0].ns, VIREO_CLI, "--cluster", "create",
         *[f"{n.ip}:{n.port}" for n in nodes], "--cluster-replicas", "1", "--cluster-yes"],
        capture_output=True, text=True, timeout=60)
    assert create.returncode == 0, create.stdout + create.stderr
    wait_for(lambda: all(n.state_ok() for n in nodes), timeout=20)
    # The victim: a primary and its replica.
    replica = next(n for n in nodes if n.role()[0] == "slave")
    victim = next(n for n in nodes if n.ip == replica.role()[1])
    wait_for(lambda: replica.role()[3] == "connected")
    slot_range = next(line.split()[8] for line in victim.call("CLUSTER", "NODES").splitlines()
                      if "myself" in line)
    first, _, last = slot_range.partition("-")
    key = next(f"k{i}" for i in range(100000)
               if int(first) <= int(victim.call("CLUSTER", "KEYSLOT", f"k{i}")) <= int(last))
    assert victim.call("SET", key, "before") == "OK"
    assert victim.call("WAIT", 1, 5000) == "1"

    netlab.cut(nodes.index(victim))
    # The minority side: no more writes once it cannot reach a majority of the primaries.
    wait_for(lambda: "CLUSTERDOWN" in victim.call("SET", key, "lost"), timeout=20)
    assert victim.call("SET", key, "lost") == "CLUSTERDOWN The cluster is down"
    # The majority side: the replica takes over and the cluster serves every slot again.
    majority = [n for n in nodes if n is not victim]
    wait_for(lambda: replica.role()[0] == "master", timeout=20)
    wait_for(lambda: all(n.state_ok() for n in majority), timeout=20)
    assert replica.call("GET", key) == "before"
    assert replica.call("SET", key, "after") == "OK"

    netlab.heal(nodes.index(victim))
    # The old primary learns of the newer claim on its slots and follows its successor.
    wait_for(lambda: victim.role()[:2] == ["slave", replica.ip], timeout=20)
    wait_for(lambda: victim.state_ok() and victim.role()[3] == "connected", timeout=20)
    assert victim.call("SET", key, "x").startswith("MOVED ")
    wait_for(lambda: all(n.state_ok() for n in nodes), timeout=20)
