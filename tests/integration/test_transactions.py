"""MULTI/EXEC/DISCARD/WATCH/UNWATCH against the real server, with several clients.

Expiry of a watched key is driven by a real TTL, but nothing asserts on time: the test waits
(with wait_for's generous bound) until the key is gone before EXEC.
"""

import pytest
import redis

from conftest import SERVER_BINARY, RespError, wait_for

# Redis 7.0 (which these tests can also run against) has no watching_clients/total_watched_keys.
VALKEY8_INFO = "redis-server" not in SERVER_BINARY

EXECABORT = RespError("EXECABORT Transaction discarded because of previous errors.")


def call_all(c, *cmds):
    """Pipelines cmds on a raw connection (one write) and returns their replies."""
    c.send(b"".join(c.encode(*cmd) for cmd in cmds))
    return [c.read_reply() for _ in cmds]


def test_redis_py_transaction_pipeline(r):
    with r.pipeline(transaction=True) as p:
        p.set("k", "1").incr("k").get("k").lpush("k", "x")
        results = p.execute(raise_on_error=False)
    assert results[:3] == [True, 2, "2"]
    assert isinstance(results[3], redis.ResponseError)  # a runtime error does not abort
    assert r.get("k") == "2"


def test_watch_conflict_with_another_client(server, r):
    other = server.client()
    r.set("balance", 10)
    with r.pipeline() as p:
        p.watch("balance")
        assert int(p.get("balance")) == 10
        other.incrby("balance", 5)
        p.multi()
        p.set("balance", 0)
        with pytest.raises(redis.WatchError):
            p.execute()
    assert r.get("balance") == "15"


def test_queue_errors_and_execabort(server):
    c = server.raw()
    replies = call_all(c, ["MULTI"], ["SET", "a", "1"], ["SET", "b"], ["NOSUCH", "x"],
                       ["GET", "a"], ["EXEC"], ["EXISTS", "a"])
    assert replies == [
        "OK", "QUEUED",
        RespError("ERR wrong number of arguments for 'set' command"),
        RespError("ERR unknown command 'NOSUCH', with args beginning with: 'x' "),
        "QUEUED", EXECABORT, 0]


def test_nested_multi_watch_inside_and_exec_arity(server):
    c = server.raw()
    # Valkey 8: MULTI and WATCH are no-multi commands, whose refusal fails the transaction.
    assert call_all(c, ["MULTI"], ["MULTI"], ["WATCH", "k"], ["SET", "k", "v"], ["EXEC"]) == [
        "OK", RespError("ERR Command not allowed inside a transaction"),
        RespError("ERR Command not allowed inside a transaction"), "QUEUED", EXECABORT]
    assert call_all(c, ["MULTI"], ["EXEC", "extra"], ["EXEC"], ["DISCARD"]) == [
        "OK",
        RespError("EXECABORT Transaction discarded because of: wrong number of arguments "
                  "for 'exec' command"),
        RespError("ERR EXEC without MULTI"), RespError("ERR DISCARD without MULTI")]


def test_blocking_commands_inside_multi_answer_at_once(server):
    c = server.raw()
    replies = call_all(c, ["MULTI"], ["BLPOP", "nolist", "0"], ["BZPOPMAX", "nozset", "0"],
                       ["XREAD", "BLOCK", "0", "STREAMS", "nostream", "$"], ["EXEC"],
                       ["PING"])
    assert replies == ["OK", "QUEUED", "QUEUED", "QUEUED", [None, None, None], "PONG"]


def test_resp3_null_reply_for_failed_watch(server, r):
    c = server.raw()
    c.call("HELLO", "3")
    assert c.call("WATCH", "k") == "OK"
    r.set("k", "changed")
    c.send(c.encode("MULTI") + c.encode("PING") + c.encode("EXEC"))
    assert c.read_line() == b"+OK"
    assert c.read_line() == b"+QUEUED"
    assert c.read_line() == b"_"  # RESP3 null, where RESP2 has *-1


def test_watched_key_expiring_fails_exec(server, r):
    c = server.raw()
    # SET with a TTL and WATCH in one write: the key certainly exists at WATCH time.
    assert call_all(c, ["SET", "k", "v", "PX", "100"], ["WATCH", "k"]) == ["OK", "OK"]
    wait_for(lambda: r.exists("k") == 0)
    # The expiry itself marks the watcher (CLIENT LIST flag d), before any EXEC.
    if "vireo" in str(r.info("server").get("executable", "")) or "vireo_version" in r.info():
        flags = [line.split(" flags=")[1].split(" ")[0]
                 for line in r.execute_command("CLIENT", "LIST").splitlines()
                 if " cmd=watch " in line]
        assert flags == ["d"], flags
    assert call_all(c, ["MULTI"], ["PING"], ["EXEC"]) == ["OK", "QUEUED", None]


def test_flushall_and_swapdb_touch_watchers(server, r):
    c = server.raw()
    r.set("k", "v")
    c.call("WATCH", "k")
    r.flushall()
    assert call_all(c, ["MULTI"], ["PING"], ["EXEC"]) == ["OK", "QUEUED", None]
    other = server.client(db=1)
    other.set("k", "in-db-1")
    c.call("WATCH", "k")
    r.swapdb(0, 1)
    assert call_all(c, ["MULTI"], ["PING"], ["EXEC"]) == ["OK", "QUEUED", None]


def test_client_list_and_info_show_transactions(server, r):
    c = server.raw()
    c_id = c.call("CLIENT", "ID")
    assert call_all(c, ["WATCH", "a", "b"], ["MULTI"], ["SET", "a", "1"], ["GET", "a"]) == [
        "OK", "OK", "QUEUED", "QUEUED"]
    info = r.info("clients")
    if VALKEY8_INFO:
        assert info["watching_clients"] == 1
        assert info["total_watched_keys"] == 2
    entry = r.client_list(client_id=[str(c_id)])[0]
    assert entry["flags"] == "x"
    assert entry["multi"] == "2"
    assert r.client_list(client_id=[str(r.client_id())])[0]["multi"] == "-1"
    r.set("b", "touched")
    entry = r.client_list(client_id=[str(c_id)])[0]
    assert entry["flags"] == "xd"
    if VALKEY8_INFO:
        assert r.info("clients")["watching_clients"] == 0
    assert c.call("EXEC") is None


def test_quit_and_reset_inside_multi(server, r):
    c = server.raw()
    assert call_all(c, ["MULTI"], ["SET", "q", "1"], ["RESET"], ["EXEC"]) == [
        "OK", "QUEUED", "RESET", RespError("ERR EXEC without MULTI")]
    assert call_all(c, ["MULTI"], ["SET", "q", "1"], ["QUIT"]) == ["OK", "QUEUED", "OK"]
    assert c.is_closed()
    assert r.exists("q") == 0


def test_transaction_is_atomic_for_other_clients(server, r):
    c = server.raw()
    cmds = [["MULTI"]] + [["INCR", "n"] for _ in range(200)] + [["EXEC"]]
    c.send(b"".join(c.encode(*cmd) for cmd in cmds))
    values = set()
    # Another client only ever sees the counter before or after the whole transaction.
    for _ in range(20):
        values.add(r.get("n"))
    replies = [c.read_reply() for _ in cmds]
    assert replies[-1] == list(range(1, 201))
    values.add(r.get("n"))
    assert values <= {None, "200"}


def test_commandstats_count_queued_commands_when_run(server, r):
    r.config_resetstat()
    c = server.raw()
    call_all(c, ["SET", "s", "x"], ["MULTI"], ["LPUSH", "s", "a"], ["EXEC"])
    stats = r.info("commandstats")
    assert stats["cmdstat_exec"]["calls"] == 1
    assert stats["cmdstat_exec"]["failed_calls"] == 0
    assert stats["cmdstat_lpush"]["failed_calls"] == 1


def test_client_pause_write_holds_exec_of_queued_writes(server, r):
    c = server.raw()
    c_id = str(c.call("CLIENT", "ID"))
    assert call_all(c, ["MULTI"], ["SET", "p", "1"]) == ["OK", "QUEUED"]
    r.client_pause(100000, all=False)
    c.send_command("EXEC")
    wait_for(lambda: "b" in r.client_list(client_id=[c_id])[0]["flags"])
    assert r.get("p") is None
    r.client_unpause()
    assert c.read_reply() == ["OK"]
    assert r.get("p") == "1"


def test_exec_refused_before_auth_says_why(start_server):
    s = start_server("--requirepass", "pw")
    c = s.raw()
    assert c.call("EXEC") == RespError(
        "EXECABORT Transaction discarded because of: NOAUTH Authentication required.")
    assert c.call("MULTI") == RespError("NOAUTH Authentication required.")
