"""Differential generators for the latency tools ("latency"): LATENCY and SLOWLOG replies that
do not depend on timing (errors, help, empty monitor, the disabled DOCTOR text), and the
latency-tracking-info-percentiles config (parsing errors, CONFIG GET's number formatting).

latency-monitor-threshold stays 0 so no spike is ever recorded, and the slow log is never read:
both would depend on how long commands take. The disabled DOCTOR text is Valkey 8's in Vireo
(shorter than Redis 7.0's, and naming Valkey): the two are compared as one ("doctor").
"""

from generators import MODE_NORMALIZERS, Cmd, command

DOCTOR_DISABLED = {
    b"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Valkey instance. "
    b"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable "
    b"it.\n",
    b"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. "
    b"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable "
    b"it. If we weren't in a deep space mission I'd suggest to take a look at "
    b"https://redis.io/topics/latency-monitor.\n"}


def _doctor(reply):
    text = reply[1][4:] if reply[0] == "=" and reply[1] else reply[1]  # "txt:" of RESP3
    if reply[0] in ("$", "=") and text in DOCTOR_DISABLED:
        return (reply[0], b"(latency monitoring disabled)")
    return reply


MODE_NORMALIZERS["doctor"] = _doctor

SUBCOMMANDS = ["LATEST", "HISTORY", "RESET", "GRAPH", "DOCTOR", "HISTOGRAM", "HELP", "foo", ""]
EVENTS = ["command", "fast-command", "expire-cycle", "nosuch", ""]
PERCENTILES = ["50", "99.9", "0", "100", "1e2", "50.5000", "99.99999", "33.3333333", "1e-7",
               "99.9999999", "abc", "-1", "101", "", "50 99", "50 99 99.9", "0 50 100", "nan",
               "inf", "-0", "100.0000001", "50 abc", "1,2", "0x10"]


@command("latency", 4)
def latency_any(g):
    sub = g.pick(SUBCOMMANDS)
    extra = [g.pick(EVENTS) for _ in range(g.randint(0, 2))]
    if sub == "HISTOGRAM":
        extra = [g.pick(["nosuchcommand", "FOO|BAR", "config|nosuch", "get|x|y"])
                 for _ in range(g.randint(1, 2))]
    if sub == "":
        return [g.case("LATENCY")]
    return Cmd([g.case("LATENCY"), g.case(sub), *extra], "doctor" if sub == "DOCTOR" else "exact")


@command("latency", 2)
def slowlog_errors(g):
    return g.pick([
        ["SLOWLOG"], ["SLOWLOG", "foo"], ["SLOWLOG", "HELP"], ["SLOWLOG", "HELP", "x"],
        ["SLOWLOG", "GET", "abc"], ["SLOWLOG", "GET", "-2"], ["SLOWLOG", "GET", "1", "2"],
        ["SLOWLOG", "GET", "1.5"], ["SLOWLOG", "LEN", "x"], ["SLOWLOG", "RESET", "x"],
        ["SLOWLOG", "GET", "0"],
    ])


@command("latency", 3)
def percentiles_config(g):
    value = g.pick(PERCENTILES)
    return [Cmd([g.case("CONFIG"), "SET", "latency-tracking-info-percentiles", value]),
            Cmd([g.case("CONFIG"), "GET", "latency-tracking-info-percentiles"])]


@command("latency", 1)
def latency_configs(g):
    name = g.pick(["latency-tracking", "latency-monitor-threshold"])
    value = g.pick(["yes", "no", "maybe", "-1", "abc", "0", ""])
    if name == "latency-monitor-threshold" and value not in ("-1", "abc", "", "maybe", "yes"):
        value = "0"  # a real threshold would record timing-dependent spikes
    return [Cmd(["CONFIG", "SET", name, value]), Cmd(["CONFIG", "GET", name])]
