"""Client-side caching (CLIENT TRACKING) over real connections: RESP3 invalidation pushes,
RESP2 redirection to a __redis__:invalidate subscriber, BCAST prefixes, OPTIN/OPTOUT with
CLIENT CACHING, NOLOOP, flushes, expiry, the tracking table limit, broken redirects and
cleanup on disconnect, with several clients at once.

Absence of a message is checked without timing: the connection's next reply must be the
PONG of a PING sent after the write (a push owed to it would have arrived first)."""

import pytest

from conftest import Push, RespError, wait_for

INVALIDATE_CHANNEL = b"__redis__:invalidate"


def resp3(server, *tracking):
    """A RESP3 raw connection, tracking with the given options when any are given."""
    c = server.raw()
    c.call("HELLO", "3")
    if tracking:
        assert c.call("CLIENT", "TRACKING", *tracking) == "OK"
    return c


def assert_nothing_pending(conn):
    assert conn.call("PING") == "PONG"


def info_field(r, section, name):
    return r.info(section)[name]


def test_resp3_invalidation_on_another_clients_write(server, r):
    a = resp3(server, "ON")
    assert a.call("GET", "k") is None
    r.set("k", "1")
    assert a.read_reply() == Push([b"invalidate", [b"k"]])
    # The key is forgotten after one invalidation until it is read again.
    r.set("k", "2")
    assert_nothing_pending(a)
    assert a.call("GET", "k") == b"2"
    r.delete("k")
    assert a.read_reply() == Push([b"invalidate", [b"k"]])


def test_own_write_invalidates_after_the_reply(server):
    a = resp3(server, "ON")
    assert a.call("GET", "k") is None
    # The push follows the SET's reply, never interleaves with it.
    assert a.call("SET", "k", "v") == "OK"
    assert a.read_reply() == Push([b"invalidate", [b"k"]])
    assert_nothing_pending(a)


def test_noloop_skips_own_writes(server, r):
    a = resp3(server, "ON", "NOLOOP")
    a.call("GET", "k")
    assert a.call("SET", "k", "v") == "OK"
    assert_nothing_pending(a)
    a.call("GET", "k")
    r.set("k", "w")
    assert a.read_reply() == Push([b"invalidate", [b"k"]])


def test_multi_key_reads_and_info_counters(server, r):
    a = resp3(server, "ON")
    b = resp3(server, "ON")
    assert a.call("MGET", "k1", "k2", "k3") == [None, None, None]
    b.call("GET", "k1")
    assert info_field(r, "clients", "tracking_clients") == 2
    stats = r.info("stats")
    assert stats["tracking_total_keys"] == 3
    assert stats["tracking_total_items"] == 4
    assert stats["tracking_total_prefixes"] == 0
    r.mset({"k1": "1", "k2": "2"})
    # One message per key, in the order the write changed them.
    assert a.read_reply() == Push([b"invalidate", [b"k1"]])
    assert a.read_reply() == Push([b"invalidate", [b"k2"]])
    assert b.read_reply() == Push([b"invalidate", [b"k1"]])
    assert_nothing_pending(b)
    stats = r.info("stats")
    assert stats["tracking_total_keys"] == 1
    assert stats["tracking_total_items"] == 1


def test_several_clients_hear_about_one_key(server, r):
    clients = [resp3(server, "ON") for _ in range(4)]
    for c in clients:
        c.call("GET", "shared")
    r.incr("shared")
    for c in clients:
        assert c.read_reply() == Push([b"invalidate", [b"shared"]])


def test_write_commands_do_not_track(server, r):
    a = resp3(server, "ON")
    a.call("SET", "w", "1")  # a write, not a read: nothing to cache
    a.call("INCR", "w")
    r.set("w", "5")
    assert_nothing_pending(a)
    assert r.info("stats")["tracking_total_keys"] == 0


def test_resp2_redirect_to_subscriber(server, r):
    sub = server.raw()
    sub_id = sub.call("CLIENT", "ID")
    assert sub.call("SUBSCRIBE", "__redis__:invalidate") == [b"subscribe", INVALIDATE_CHANNEL, 1]
    a = server.client()
    assert a.execute_command("CLIENT", "TRACKING", "ON", "REDIRECT", sub_id) == "OK"
    assert a.execute_command("CLIENT", "GETREDIR") == sub_id
    a.get("k1")
    a.mget("k1", "k2")
    r.mset({"k1": "1", "k2": "2"})
    assert sub.read_reply() == [b"message", INVALIDATE_CHANNEL, [b"k1"]]
    assert sub.read_reply() == [b"message", INVALIDATE_CHANNEL, [b"k2"]]
    a.get("k1")
    r.flushall()
    # A flush invalidates everything: the key list is a null.
    assert sub.read_reply() == [b"message", INVALIDATE_CHANNEL, None]
    assert sub.call("PING") == [b"pong", b""]


def test_resp3_redirect_target_gets_pushes(server, r):
    target = resp3(server)
    tid = target.call("CLIENT", "ID")
    a = server.client()
    a.execute_command("CLIENT", "TRACKING", "ON", "REDIRECT", tid)
    a.get("k")
    r.set("k", "1")
    assert target.read_reply() == Push([b"invalidate", [b"k"]])


def test_resp2_without_redirect_gets_nothing(server, r):
    a = server.raw()
    assert a.call("CLIENT", "TRACKING", "ON") == "OK"
    a.call("GET", "k")
    r.set("k", "1")
    assert a.call("PING") == "PONG"


def test_flush_sends_one_null_invalidation(server, r):
    a = resp3(server, "ON")
    bc = resp3(server, "ON", "BCAST")
    a.call("GET", "k")
    r.flushall()
    assert a.read_reply() == Push([b"invalidate", None])
    assert bc.read_reply() == Push([b"invalidate", None])
    assert_nothing_pending(a)  # one message, though FLUSHALL empties every database
    assert r.info("stats")["tracking_total_keys"] == 0
    r.flushdb()
    assert a.read_reply() == Push([b"invalidate", None])
    # The flushing client hears of it after its own reply.
    assert a.call("FLUSHDB") == "OK"
    assert a.read_reply() == Push([b"invalidate", None])
    assert [bc.read_reply(), bc.read_reply()] == [Push([b"invalidate", None])] * 2
    # SWAPDB does not invalidate (as in Valkey).
    a.call("GET", "k")
    r.swapdb(0, 1)
    assert_nothing_pending(a)
    assert_nothing_pending(bc)


def test_bcast_prefixes(server, r):
    a = resp3(server, "ON", "BCAST", "PREFIX", "x", "PREFIX", "y")
    assert r.info("stats")["tracking_total_prefixes"] == 2
    r.mset({"x1": "1", "x2": "2", "y1": "3", "z": "4"})
    # One message per prefix with all the keys changed in that turn, in key order.
    assert a.read_reply() == Push([b"invalidate", [b"x1", b"x2"]])
    assert a.read_reply() == Push([b"invalidate", [b"y1"]])
    assert_nothing_pending(a)
    p = r.pipeline(transaction=True)
    p.set("x9", "1")
    p.set("x0", "1")
    p.set("x9", "2")
    p.execute()
    assert a.read_reply() == Push([b"invalidate", [b"x0", b"x9"]])
    # BCAST does not track reads.
    a.call("GET", "zz")
    assert r.info("stats")["tracking_total_keys"] == 0


def test_bcast_without_prefix_hears_everything(server, r):
    a = resp3(server, "ON", "BCAST", "NOLOOP")
    r.set("anything", "1")
    assert a.read_reply() == Push([b"invalidate", [b"anything"]])
    assert a.call("SET", "mine", "1") == "OK"
    assert_nothing_pending(a)  # NOLOOP: its own change is left out
    info = a.call("CLIENT", "TRACKINGINFO")
    assert info[b"flags"] == {b"on", b"bcast", b"noloop"}
    assert info[b"prefixes"] == [b""]


def test_bcast_prefixes_accumulate_and_overlap_errors(server):
    a = resp3(server, "ON", "BCAST", "PREFIX", "a", "PREFIX", "b")
    assert a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "c") == "OK"
    assert a.call("CLIENT", "TRACKINGINFO")[b"prefixes"] == [b"a", b"b", b"c"]
    assert a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab") == RespError(
        "ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client "
        "must not overlap.")
    assert a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a") == RespError(
        "ERR Prefix 'a' overlaps with an existing prefix 'a'. Prefixes for a single client "
        "must not overlap.")
    b = resp3(server)
    assert b.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "fo", "PREFIX", "foo") == \
        RespError("ERR Prefix 'fo' overlaps with another provided prefix 'foo'. Prefixes for a "
                  "single client must not overlap.")


def test_optin_tracks_only_after_caching_yes(server, r):
    a = resp3(server, "ON", "OPTIN")
    a.call("GET", "o1")
    assert a.call("CLIENT", "CACHING", "YES") == "OK"
    assert a.call("CLIENT", "TRACKINGINFO")[b"flags"] == {b"on", b"optin", b"caching-yes"}
    a.call("GET", "o2")
    a.call("GET", "o3")  # CACHING covered the previous command only
    r.mset({"o1": "1", "o2": "2", "o3": "3"})
    assert a.read_reply() == Push([b"invalidate", [b"o2"]])
    assert_nothing_pending(a)
    # In a transaction it covers every command of the transaction.
    a.call("CLIENT", "CACHING", "YES")
    assert a.call("MULTI") == "OK"
    a.call("GET", "o4")
    a.call("GET", "o5")
    assert a.call("EXEC") == [None, None]
    a.call("GET", "o6")
    r.mset({"o4": "1", "o5": "2", "o6": "3"})
    assert a.read_reply() == Push([b"invalidate", [b"o4"]])
    assert a.read_reply() == Push([b"invalidate", [b"o5"]])
    assert_nothing_pending(a)


def test_optout_skips_after_caching_no(server, r):
    a = resp3(server, "ON", "OPTOUT")
    assert a.call("CLIENT", "CACHING", "NO") == "OK"
    a.call("GET", "p1")
    a.call("GET", "p2")
    r.mset({"p1": "1", "p2": "2"})
    assert a.read_reply() == Push([b"invalidate", [b"p2"]])
    assert_nothing_pending(a)


def test_invalidations_follow_the_exec_reply(server):
    a = resp3(server, "ON")
    a.call("GET", "k1")
    a.call("MULTI")
    a.call("GET", "k2")
    a.call("SET", "k1", "1")
    a.call("SET", "k2", "1")
    assert a.call("EXEC") == [None, "OK", "OK"]
    assert a.read_reply() == Push([b"invalidate", [b"k1"]])
    assert a.read_reply() == Push([b"invalidate", [b"k2"]])


def test_expired_key_invalidates(server, r):
    a = resp3(server, "ON")
    # Written and read in one transaction, so the key is surely still there when read.
    a.call("MULTI")
    a.call("SET", "e", "v", "PX", "200")
    a.call("GET", "e")
    assert a.call("EXEC") == ["OK", b"v"]
    wait_for(lambda: r.exists("e") == 0)
    assert a.read_reply() == Push([b"invalidate", [b"e"]])


def test_table_limit_evicts_tracked_keys(server, r):
    assert r.config_get("tracking-table-max-keys") == {"tracking-table-max-keys": "1000000"}
    r.config_set("tracking-table-max-keys", 2)
    a = resp3(server, "ON")
    a.call("GET", "m1")
    a.call("GET", "m2")
    assert a.call("GET", "m3") is None
    push = a.read_reply()
    assert push[0] == b"invalidate" and push[1][0] in (b"m1", b"m2", b"m3")
    assert r.info("stats")["tracking_total_keys"] == 2
    r.config_set("tracking-table-max-keys", 0)
    for i in range(10):
        a.call("GET", f"n{i}")
    assert_nothing_pending(a)
    assert r.info("stats")["tracking_total_keys"] == 12


def test_broken_redirect(server, r):
    target = server.raw()
    tid = target.call("CLIENT", "ID")
    a = resp3(server, "ON", "REDIRECT", str(tid))
    a.call("GET", "k")
    target.close()
    wait_for(lambda: all(f"id={tid} " not in line for line in
                         r.execute_command("CLIENT", "LIST").splitlines()))
    r.set("k", "1")
    assert a.read_reply() == Push([b"tracking-redir-broken", tid])
    info = a.call("CLIENT", "TRACKINGINFO")
    assert info[b"flags"] == {b"on", b"broken_redirect"}
    assert info[b"redirect"] == tid
    line = a.call("CLIENT", "INFO")
    assert " flags=tR " in line and f" redir={tid} " in line


def test_client_list_flags_and_redir(server, r):
    a = resp3(server, "ON", "BCAST")
    line = a.call("CLIENT", "INFO")
    assert " flags=tB " in line and " redir=0 " in line
    assert a.call("CLIENT", "TRACKING", "OFF") == "OK"
    line = a.call("CLIENT", "INFO")
    assert " flags=N " in line and " redir=-1 " in line


def test_trackinginfo_and_getredir(server, r):
    a = server.raw()  # RESP2: the flags set is an array
    assert a.call("CLIENT", "TRACKINGINFO") == [b"flags", [b"off"], b"redirect", -1,
                                                 b"prefixes", []]
    assert a.call("CLIENT", "GETREDIR") == -1
    a.call("CLIENT", "TRACKING", "ON", "OPTOUT", "NOLOOP")
    assert a.call("CLIENT", "TRACKINGINFO") == [b"flags", [b"on", b"optout", b"noloop"],
                                                 b"redirect", 0, b"prefixes", []]
    assert a.call("CLIENT", "GETREDIR") == 0
    # ON again resets the options not given.
    a.call("CLIENT", "TRACKING", "ON")
    assert a.call("CLIENT", "TRACKINGINFO")[1] == [b"on"]


ERRORS = [
    (["ON", "REDIRECT", "999999"], "ERR The client ID you want redirect to does not exist"),
    (["ON", "REDIRECT", "abc"], "ERR value is not an integer or out of range"),
    (["ON", "PREFIX", "a"], "ERR PREFIX option requires BCAST mode to be enabled"),
    (["ON", "BCAST", "OPTIN"], "ERR OPTIN and OPTOUT are not compatible with BCAST"),
    (["ON", "BCAST", "OPTOUT"], "ERR OPTIN and OPTOUT are not compatible with BCAST"),
    (["ON", "OPTIN", "OPTOUT"], "ERR You can't specify both OPTIN mode and OPTOUT mode"),
    (["ON", "FOO"], "ERR syntax error"),
    (["MAYBE"], "ERR syntax error"),
    (["ON", "REDIRECT"], "ERR syntax error"),
    (["ON", "PREFIX"], "ERR syntax error"),
    (["OFF", "REDIRECT", "999999"], "ERR The client ID you want redirect to does not exist"),
]


@pytest.mark.parametrize("args,error", ERRORS)
def test_tracking_errors(server, args, error):
    a = server.raw()
    assert a.call("CLIENT", "TRACKING", *args) == RespError(error)


def test_redirect_twice_and_mode_switch_errors(server):
    a = server.raw()
    me = a.call("CLIENT", "ID")
    assert a.call("CLIENT", "TRACKING", "ON", "REDIRECT", me, "REDIRECT", me) == RespError(
        "ERR A client can only redirect to a single other client")
    assert a.call("CLIENT", "TRACKING") == RespError(
        "ERR wrong number of arguments for 'client|tracking' command")
    a.call("CLIENT", "TRACKING", "ON")
    assert a.call("CLIENT", "TRACKING", "ON", "BCAST") == RespError(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
        "then re-enabling it with a different mode.")
    a.call("CLIENT", "TRACKING", "ON", "OPTIN")
    assert a.call("CLIENT", "TRACKING", "ON", "OPTOUT") == RespError(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
        "then re-enabling it with a different mode.")


def test_caching_errors(server):
    a = server.raw()
    assert a.call("CLIENT", "CACHING", "YES") == RespError(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
        "or OPTOUT mode enabled")
    a.call("CLIENT", "TRACKING", "ON", "OPTIN")
    assert a.call("CLIENT", "CACHING", "NO") == RespError(
        "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
    assert a.call("CLIENT", "CACHING", "MAYBE") == RespError("ERR syntax error")
    a.call("CLIENT", "TRACKING", "OFF")
    a.call("CLIENT", "TRACKING", "ON", "OPTOUT")
    assert a.call("CLIENT", "CACHING", "YES") == RespError(
        "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
    assert a.call("CLIENT", "CACHING") == RespError(
        "ERR wrong number of arguments for 'client|caching' command")


def test_disconnect_and_reset_clean_up(server, r):
    a = resp3(server, "ON", "BCAST", "PREFIX", "p")
    b = resp3(server, "ON")
    assert info_field(r, "clients", "tracking_clients") == 2
    a.close()
    wait_for(lambda: info_field(r, "clients", "tracking_clients") == 1)
    assert r.info("stats")["tracking_total_prefixes"] == 0
    assert b.call("RESET") == "RESET"
    assert info_field(r, "clients", "tracking_clients") == 0
    assert b.call("CLIENT", "TRACKINGINFO") == [b"flags", [b"off"], b"redirect", -1,
                                                 b"prefixes", []]


def test_scripts_track_for_their_caller(server, r):
    a = resp3(server, "ON")
    # The script's reads are the caller's reads.
    assert a.call("EVAL", "return redis.call('get', KEYS[1])", 1, "s1") is None
    assert a.call("EVAL_RO", "return redis.call('get', KEYS[1])", 1, "s2") is None
    r.mset({"s1": "1", "s2": "2"})
    assert a.read_reply() == Push([b"invalidate", [b"s1"]])
    assert a.read_reply() == Push([b"invalidate", [b"s2"]])
    # Its writes invalidate after the script's reply.
    a.call("GET", "s3")
    assert a.call("EVAL", "redis.call('set', KEYS[1], 'x') return 7", 1, "s3") == 7
    assert a.read_reply() == Push([b"invalidate", [b"s3"]])
    # NOLOOP knows the script's writes as the caller's own.
    assert a.call("CLIENT", "TRACKING", "ON", "NOLOOP") == "OK"
    a.call("GET", "s4")
    assert a.call("EVAL", "redis.call('set', KEYS[1], 'x') return 1", 1, "s4") == 1
    assert_nothing_pending(a)
