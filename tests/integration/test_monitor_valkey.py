"""MONITOR and commandstats as Valkey 8.0.1 keeps them (../shared/reference/ where present):
EVAL/EVALSHA/FCALL show before the commands their script runs, whatever their outcome; a
command that blocks shows once, when it arrives; a blocked command answered by a timeout or
CLIENT UNBLOCK counts once in commandstats (failed when unblocked with an error).
"""

import re

import pytest

from conftest import wait_for

LIB = ("#!lua name=mon\nserver.register_function('monf', function() "
       "return server.call('incr', 'mc') end)")


def monitor_lines(server, actions):
    """The commands a MONITOR client sees while actions(client) runs, as 'db source cmd...'
    with the port and time dropped."""
    mon = server.raw()
    assert mon.call("MONITOR") == "OK" or mon.call("PING")  # "+OK" then the feed
    c = server.client(decode_responses=True)
    actions(c, server)
    c.execute_command("ECHO", "end-of-actions")
    lines = []
    while True:
        line = mon.read_reply()
        line = re.sub(r"^\d+\.\d+ \[(\d+) ([^\]:]+)(:\d+)?\]", r"[\1 \2]", str(line))
        if "end-of-actions" in line:
            return lines
        lines.append(line)


def actions(c, server):
    c.function_load(LIB, replace=True)
    c.eval("redis.call('set', 'mk', 'v') return redis.call('get', 'mk')", 0)
    for bad in [("EVALSHA", "f" * 40, "0"), ("EVAL", "return 1", "5"), ("FCALL", "nosuch", "0")]:
        try:
            c.execute_command(*bad)
        except Exception:
            pass
    c.fcall("monf", 0)
    c.execute_command("SELECT", "3")
    blocked = server.raw()
    blocked.send_command("BLPOP", "nolist", "0")
    wait_for(lambda: blocked_id(c))
    c.execute_command("SELECT", "0")
    c.rpush("nolist", "x")
    assert blocked.read_reply() == [b"nolist", b"x"]


EXPECTED = [
    '[0 127.0.0.1] "FUNCTION" "LOAD" "REPLACE" "#!lua name=mon\\nserver.register_function('
    '\'monf\', function() return server.call(\'incr\', \'mc\') end)"',
    '[0 127.0.0.1] "EVAL" "redis.call(\'set\', \'mk\', \'v\') '
    'return redis.call(\'get\', \'mk\')" "0"',
    '[0 lua] "set" "mk" "v"',
    '[0 lua] "get" "mk"',
    '[0 127.0.0.1] "EVALSHA" "ffffffffffffffffffffffffffffffffffffffff" "0"',
    '[0 127.0.0.1] "EVAL" "return 1" "5"',
    '[0 127.0.0.1] "FCALL" "nosuch" "0"',
    '[0 127.0.0.1] "FCALL" "monf" "0"',
    '[0 lua] "incr" "mc"',
    '[3 127.0.0.1] "SELECT" "3"',
]


def test_monitor_shows_scripts_first_and_blocked_commands_once(server):
    lines = monitor_lines(server, actions)
    assert lines[:len(EXPECTED)] == EXPECTED
    rest = [l for l in lines[len(EXPECTED):] if "CLIENT" not in l]
    assert rest == ['[0 127.0.0.1] "BLPOP" "nolist" "0"', '[0 127.0.0.1] "SELECT" "0"',
                    '[0 127.0.0.1] "RPUSH" "nolist" "x"']


def test_monitor_matches_valkey(server, valkey_process):
    def clean(lines):
        return [l for l in lines if "CLIENT" not in l]
    valkey_process.client().flushall()
    assert clean(monitor_lines(server, actions)) == clean(monitor_lines(valkey_process, actions))


def blocked_id(c):
    """The id of a client blocked now (flags=b), or None."""
    m = re.search(r"^id=(\d+) [^\n]* flags=b ", c.execute_command("CLIENT", "LIST"), re.M)
    return m and m.group(1)


def unblock_counts(server):
    c = server.client(decode_responses=True)
    c.config_resetstat()
    assert c.blpop("l", 0.05) is None
    waiter = server.raw()
    for how in ["TIMEOUT", "ERROR"]:
        waiter.send_command("BLPOP", "l", "0")
        wid = wait_for(lambda: blocked_id(c))
        assert c.execute_command("CLIENT", "UNBLOCK", wid, how) == 1
        waiter.read_reply()
    waiter.send_command("BLPOP", "l", "0")
    wait_for(lambda: blocked_id(c))
    c.rpush("l", "x")
    waiter.read_reply()
    stats = c.info("commandstats")["cmdstat_blpop"]
    return stats["calls"], stats["failed_calls"], stats["rejected_calls"]


def test_unblocked_commands_count_once(server):
    # A timeout, CLIENT UNBLOCK TIMEOUT, CLIENT UNBLOCK ERROR (failed) and one served.
    assert unblock_counts(server) == (4, 1, 0)


def test_unblocked_counts_match_valkey(server, valkey_process):
    assert unblock_counts(server) == unblock_counts(valkey_process)
