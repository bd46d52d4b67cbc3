"""TLS (tls-port, tls-auth-clients, tls-replication): certificates are made at test time with
the openssl command into a temp dir; clients are redis-cli --tls, redis-py with ssl=True and raw
ssl sockets."""

import os
import socket
import ssl
import subprocess

import pytest
import redis

from conftest import REDIS_CLI, RawConnection, built_binary, free_port, wait_for
from test_replication import caught_up, repl_info, same_data

CLI_BINARY = built_binary("VIREO_CLI", "vireo-cli")


# P-256 keys: quick to make on a slow machine, unlike RSA.
EC_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    """A CA, a server certificate (localhost / 127.0.0.1) and a client certificate it signed,
    plus a second CA nobody trusts."""
    d = tmp_path_factory.mktemp("tls")
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for ca in ("ca", "rogue-ca"):
        _openssl("req", "-x509", *EC_KEY, "-nodes", "-keyout", f"{ca}.key",
                 "-out", f"{ca}.crt", "-days", "2", "-subj", f"/CN=Vireo test {ca}", cwd=d)
    for name, ca in (("server", "ca"), ("client", "ca"), ("rogue", "rogue-ca")):
        _openssl("req", *EC_KEY, "-nodes", "-keyout", f"{name}.key", "-out",
                 f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
                 "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", "san.ext",
                 cwd=d)
    return {
        "dir": str(d), "ca": str(d / "ca.crt"), "cert": str(d / "server.crt"),
        "key": str(d / "server.key"), "client_cert": str(d / "client.crt"),
        "client_key": str(d / "client.key"), "rogue_cert": str(d / "rogue.crt"),
        "rogue_key": str(d / "rogue.key")}


def tls_args(certs, port, *extra):
    return ["--tls-port", str(port), "--tls-cert-file", certs["cert"], "--tls-key-file",
            certs["key"], "--tls-ca-cert-file", certs["ca"], *extra]


def start_tls(start_server, certs, *extra):
    port = free_port()
    s = start_server(*tls_args(certs, port, *extra))
    s.tls_port = port
    return s


def tls_client(server, certs, with_cert=True, **kw):
    if with_cert:
        kw.setdefault("ssl_certfile", certs["client_cert"])
        kw.setdefault("ssl_keyfile", certs["client_key"])
    kw.setdefault("decode_responses", True)
    c = redis.Redis(host="127.0.0.1", port=server.tls_port, ssl=True, ssl_ca_certs=certs["ca"],
                    socket_timeout=10, **kw)
    server._clients.append(c)
    return c


def tls_raw(server, certs, with_cert=True):
    """A RawConnection whose socket speaks TLS."""
    ctx = ssl.create_default_context(cafile=certs["ca"])
    ctx.check_hostname = False
    if with_cert:
        ctx.load_cert_chain(certs["client_cert"], certs["client_key"])
    conn = RawConnection.__new__(RawConnection)
    plain = socket.create_connection(("127.0.0.1", server.tls_port), timeout=10)
    conn.sock = ctx.wrap_socket(plain)
    conn.buf = b""
    conn.last_attributes = None
    return conn


def cli_tls(server, certs, *args, binary=REDIS_CLI):
    cmd = [binary, "--tls", "--cacert", certs["ca"], "--cert", certs["client_cert"], "--key",
           certs["client_key"], "-h", "127.0.0.1", "-p", str(server.tls_port), *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    return res


@pytest.mark.parametrize("binary", [REDIS_CLI, CLI_BINARY], ids=["redis-cli", "vireo-cli"])
def test_cli_over_tls_sets_and_gets(start_server, certs, binary):
    s = start_tls(start_server, certs)
    assert cli_tls(s, certs, "SET", "k", "over tls", binary=binary).stdout.strip() == "OK"
    assert cli_tls(s, certs, "GET", "k", binary=binary).stdout.strip() == "over tls"
    # The same data on the plain port: one keyspace, two transports.
    assert s.client().get("k") == "over tls"


def test_vireo_cli_pipe_mode_and_rediss_uri(start_server, certs):
    s = start_tls(start_server, certs)
    tls = ["--tls", "--cacert", certs["ca"], "--cert", certs["client_cert"], "--key",
           certs["client_key"]]
    commands = "".join(f"SET k{i} v{i}\n" for i in range(3000))
    res = subprocess.run([CLI_BINARY, *tls, "-p", str(s.tls_port), "--pipe"], input=commands,
                         capture_output=True, text=True, timeout=60)
    assert "errors: 0, replies: 3000" in res.stdout, res.stdout + res.stderr
    assert s.client().dbsize() == 3000
    res = subprocess.run([CLI_BINARY, *tls, "-u", f"rediss://127.0.0.1:{s.tls_port}/0", "GET",
                          "k2999"], capture_output=True, text=True, timeout=30)
    assert res.stdout.strip() == "v2999", res.stderr


def test_vireo_cli_insecure_skips_the_server_check(start_server, certs):
    s = start_tls(start_server, certs, "--tls-auth-clients", "no")
    base = [CLI_BINARY, "--tls", "-p", str(s.tls_port)]
    # Without the CA the server's certificate cannot be trusted; --insecure connects anyway.
    refused = subprocess.run(base + ["PING"], capture_output=True, text=True, timeout=30)
    assert "PONG" not in refused.stdout
    ok = subprocess.run(base + ["--insecure", "PING"], capture_output=True, text=True, timeout=30)
    assert ok.stdout.strip() == "PONG"


def test_redis_py_ssl_and_resp3(start_server, certs):
    s = start_tls(start_server, certs)
    c = tls_client(s, certs)
    assert c.set("a", "1")
    assert c.incr("a") == 2
    assert c.hset("h", mapping={"f": "v"}) == 1
    with tls_raw(s, certs) as raw:
        hello = raw.call("HELLO", "3")
        assert hello[b"proto"] == 3
        assert raw.call("HGETALL", "h") == {b"f": b"v"}
        assert raw.call("GET", "a") == b"2"


def test_auth_clients_yes_refuses_a_client_without_certificate(start_server, certs):
    s = start_tls(start_server, certs)
    with pytest.raises((redis.ConnectionError, ssl.SSLError, OSError)):
        tls_client(s, certs, with_cert=False).ping()
    # A certificate from a CA the server does not trust is refused too.
    with pytest.raises((redis.ConnectionError, ssl.SSLError, OSError)):
        tls_client(s, certs, ssl_certfile=certs["rogue_cert"], ssl_keyfile=certs["rogue_key"]).ping()
    assert tls_client(s, certs).ping()
    assert s.client().ping()


def test_auth_clients_optional_and_no_accept_a_client_without_certificate(start_server, certs):
    s = start_tls(start_server, certs, "--tls-auth-clients", "optional")
    assert tls_client(s, certs, with_cert=False).ping()
    # optional still checks a certificate that is given.
    with pytest.raises((redis.ConnectionError, ssl.SSLError, OSError)):
        tls_client(s, certs, ssl_certfile=certs["rogue_cert"], ssl_keyfile=certs["rogue_key"]).ping()
    # CONFIG SET applies to the next connections.
    assert s.client().config_set("tls-auth-clients", "yes")
    with pytest.raises((redis.ConnectionError, ssl.SSLError, OSError)):
        tls_client(s, certs, with_cert=False).ping()
    assert s.client().config_set("tls-auth-clients", "no")
    assert tls_client(s, certs, with_cert=False).ping()


def test_plain_text_and_garbage_on_the_tls_port_are_dropped(start_server, certs):
    s = start_tls(start_server, certs)
    for payload in (RawConnection.encode("PING"), b"\x16\x03\x01\x00\x05hello",
                    os.urandom(4096), b"\x16\x03\x03" + b"\xff" * 300):
        with socket.create_connection(("127.0.0.1", s.tls_port), timeout=10) as sock:
            sock.sendall(payload)
            data = b""
            try:
                while True:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except ConnectionResetError:
                pass
            assert b"PONG" not in data
    # A client that connects and says nothing, then goes away.
    socket.create_connection(("127.0.0.1", s.tls_port), timeout=10).close()
    assert s.client().ping()
    assert tls_client(s, certs).ping()
    assert s.is_alive()


@pytest.mark.parametrize("io_threads", ["1", "4"])
def test_big_values_and_deep_pipelines(start_server, server_binary, certs, io_threads):
    # Every read and write through the I/O threads (a Valkey 8 option redis-server lacks).
    spread = [] if "redis-server" in server_binary else ["--events-per-io-thread", "0"]
    s = start_tls(start_server, certs, "--io-threads", io_threads, *spread)
    c = tls_client(s, certs, decode_responses=False)
    big = os.urandom(4 * 1024 * 1024)
    assert c.set("big", big)
    assert c.get("big") == big
    assert c.strlen("big") == len(big)
    pipe = c.pipeline(transaction=False)
    n = 5000
    for i in range(n):
        pipe.set(f"key:{i}", f"value:{i}" * 10)
    for i in range(n):
        pipe.get(f"key:{i}")
    replies = pipe.execute()
    assert replies[:n] == [True] * n
    assert replies[n:] == [f"value:{i}".encode() * 10 for i in range(n)]
    # Several clients at once, each with big replies in flight.
    clients = [tls_raw(s, certs) for _ in range(8)]
    for raw in clients:
        for _ in range(3):
            raw.send_command("GET", "big")
    for raw in clients:
        for _ in range(3):
            assert raw.read_reply() == big
        raw.close()
    assert s.client().dbsize() == n + 1


def test_replication_over_tls(start_server, certs):
    primary = start_tls(start_server, certs, "--enable-debug-command", "local")
    replica = start_tls(start_server, certs, "--tls-replication", "yes",
                        "--enable-debug-command", "local")
    p = primary.client()
    for i in range(2000):
        p.set(f"k{i}", "x" * (i % 300))
    p.rpush("list", *range(100))
    p.set("big", "y" * (2 * 1024 * 1024))
    r = replica.client()
    assert r.replicaof("127.0.0.1", primary.tls_port)
    wait_for(lambda: repl_info(r).get("master_link_status") == "up")
    # The command stream after the full sync.
    p.incr("counter")
    p.hset("h", mapping={"a": "1", "b": "2"})
    p.wait(1, 5000)
    caught_up(p, r)
    assert same_data(primary, replica)
    assert p.execute_command("DEBUG", "DIGEST") == r.execute_command("DEBUG", "DIGEST")
    # The primary lists the replica at its TLS port, and saw it on the TLS listener.
    assert repl_info(p)["slave0"]["port"] == replica.tls_port
    replica_clients = [cl for cl in p.client_list() if "S" in cl["flags"]]
    assert len(replica_clients) == 1
    assert replica_clients[0]["laddr"].endswith(f":{primary.tls_port}")


def test_bad_certificate_path_stops_start_up(start_server, certs):
    port = free_port()
    s = start_server("--tls-port", str(port), "--tls-cert-file", "/nonexistent/server.crt",
                     "--tls-key-file", certs["key"], "--tls-ca-cert-file", certs["ca"],
                     wait=False)
    s.proc.wait(timeout=10)
    assert s.proc.returncode != 0
    log = s.log()
    assert "Failed to load certificate: /nonexistent/server.crt" in log
    assert "Failed to configure TLS. Check logs for more info." in log


def test_bad_protocols_and_missing_ca_stop_start_up(start_server, certs):
    port = free_port()
    s = start_server(*tls_args(certs, port, "--tls-protocols", "TLSv1.9"), wait=False)
    s.proc.wait(timeout=10)
    assert s.proc.returncode != 0
    assert "Invalid tls-protocols specified" in s.log()
    s = start_server("--tls-port", str(free_port()), "--tls-cert-file", certs["cert"],
                     "--tls-key-file", certs["key"], wait=False)
    s.proc.wait(timeout=10)
    assert s.proc.returncode != 0
    assert "Either tls-ca-cert-file or tls-ca-cert-dir must be specified" in s.log()


def test_config_set_reloads_certificates(start_server, certs):
    s = start_tls(start_server, certs, "--tls-protocols", "TLSv1.2 TLSv1.3")
    c = s.client()
    with pytest.raises(redis.ResponseError) as e:
        c.config_set("tls-cert-file", "/nonexistent.crt")
    assert "Unable to update TLS configuration" in str(e.value)
    assert c.config_get("tls-cert-file")["tls-cert-file"] == certs["cert"]
    with pytest.raises(redis.ResponseError):
        c.config_set("tls-protocols", "TLSv1.9")
    assert tls_client(s, certs).ping()
    # A new key pair (the client one, signed by the same CA) is served to new connections.
    # (in one CONFIG SET: a certificate without its key is refused)
    with pytest.raises(redis.ResponseError):
        c.config_set("tls-cert-file", certs["client_cert"])
    assert c.execute_command("CONFIG", "SET", "tls-cert-file", certs["client_cert"],
                             "tls-key-file", certs["client_key"]) == "OK"
    with tls_raw(s, certs) as raw:
        assert raw.call("PING") == "PONG"
        assert raw.sock.getpeercert()["subject"] == ((("commonName", "client"),),)
    # tls-port moves.
    new_port = free_port()
    assert c.config_set("tls-port", str(new_port)) is True
    s.tls_port = new_port
    assert tls_client(s, certs).ping()


def test_tls_protocols_limit_the_versions(start_server, certs):
    s = start_tls(start_server, certs, "--tls-protocols", "TLSv1.3")
    with tls_raw(s, certs) as raw:
        assert raw.sock.version() == "TLSv1.3"
    ctx = ssl.create_default_context(cafile=certs["ca"])
    ctx.check_hostname = False
    ctx.load_cert_chain(certs["client_cert"], certs["client_key"])
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    with pytest.raises((ssl.SSLError, OSError)):
        with socket.create_connection(("127.0.0.1", s.tls_port), timeout=10) as plain:
            with ctx.wrap_socket(plain) as tls:
                tls.sendall(RawConnection.encode("PING"))
                tls.recv(100)


def test_cluster_bus_over_tls(start_server, certs):
    nodes = []
    for _ in range(3):
        bus = free_port()
        n = start_tls(start_server, certs, "--cluster-enabled", "yes", "--cluster-config-file",
                      "nodes.conf", "--cluster-node-timeout", "1000", "--cluster-port", str(bus),
                      "--tls-cluster", "yes", "--tls-replication", "yes")
        n.bus_port = bus
        nodes.append(n)
    first = nodes[0].client()
    for n in nodes[1:]:
        assert first.execute_command("CLUSTER", "MEET", "127.0.0.1", n.tls_port, n.bus_port)
    ranges = [(0, 5460), (5461, 10922), (10923, 16383)]
    for n, (lo, hi) in zip(nodes, ranges):
        assert n.client().execute_command("CLUSTER", "ADDSLOTSRANGE", lo, hi)
    for n in nodes:
        c = n.client()
        wait_for(lambda: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"), timeout=20)
    # Nodes announce their TLS ports, and their bus links are up (the bus speaks TLS).
    # A plaintext client is shown the plain ports, a TLS client the TLS ones (Valkey's pport).
    slots = first.execute_command("CLUSTER", "SLOTS")
    assert sorted(s[2][1] for s in slots) == sorted(n.port for n in nodes)
    slots = tls_client(nodes[0], certs).execute_command("CLUSTER", "SLOTS")
    assert sorted(s[2][1] for s in slots) == sorted(n.tls_port for n in nodes)
    links = first.execute_command("CLUSTER", "LINKS")
    assert len(links) >= 4
    ctx = ssl.create_default_context(cafile=certs["ca"])
    ctx.check_hostname = False
    ctx.load_cert_chain(certs["client_cert"], certs["client_key"])
    with socket.create_connection(("127.0.0.1", nodes[1].bus_port), timeout=10) as plain:
        with ctx.wrap_socket(plain) as bus_tls:
            assert bus_tls.version() in ("TLSv1.2", "TLSv1.3")
    # A replica joins over the TLS bus and replicates over TLS from its primary's TLS port.
    bus = free_port()
    replica = start_tls(start_server, certs, "--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes.conf", "--cluster-node-timeout", "1000", "--cluster-port", str(bus),
                        "--tls-cluster", "yes", "--tls-replication", "yes")
    assert first.execute_command("CLUSTER", "MEET", "127.0.0.1", replica.tls_port, bus)
    rc = replica.client()
    wait_for(lambda: len(rc.execute_command("CLUSTER", "NODES").splitlines()) == 4, timeout=20)
    primary_id = first.execute_command("CLUSTER", "MYID")
    assert rc.execute_command("CLUSTER", "REPLICATE", primary_id)
    wait_for(lambda: rc.info("replication").get("master_link_status") == "up", timeout=20)
    assert rc.info("replication")["master_port"] == nodes[0].tls_port
    # Redirections name the TLS port; a TLS client can follow them.
    c = tls_client(nodes[0], certs)
    with pytest.raises(redis.ResponseError) as e:
        for i in range(100):
            c.set(f"key{i}", "v")
    moved = str(e.value).split()
    assert moved[0] == "MOVED"
    assert int(moved[2].split(":")[1]) in [n.tls_port for n in nodes[1:]]
    with pytest.raises(redis.ResponseError) as e:
        for i in range(100):
            first.set(f"key{i}", "v")
    assert int(str(e.value).split()[2].split(":")[1]) in [n.port for n in nodes[1:]]


def test_large_values_are_sent_whole_over_tls(start_server, certs):
    # Replies of 16 KB and more are sent from the value itself; over TLS too, piece by piece.
    s = start_tls(start_server, certs)
    values = [os.urandom(50_000 + 7 * i) for i in range(30)]
    r = s.client()
    for i, v in enumerate(values):
        r.set(f"k{i}", v)
    conn = tls_raw(s, certs)
    conn.send(b"".join(RawConnection.encode("GET", f"k{i}") for i in range(30)) +
              RawConnection.encode("PING"))
    # The pipeline is one TLS record, run whole before the first reply is written: the keys
    # deleted after that reply are still in the replies queued behind it.
    assert conn.read_reply() == values[0]
    r.delete(*[f"k{i}" for i in range(30)])
    for v in values[1:]:
        assert conn.read_reply() == v
    assert conn.read_reply() == "PONG"
