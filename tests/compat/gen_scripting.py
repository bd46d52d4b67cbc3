"""Differential generators for scripting ("scripting"): EVAL, EVALSHA, EVAL_RO, SCRIPT.

Scripts are built from templates covering every Lua <-> RESP conversion rule (numbers truncated
to integers, strings, booleans, nil, arrays cut at the first nil, {ok=}/{err=} tables,
error_reply/status_reply, RESP3 double/map/set/big number/verbatim under both client protocols
and both redis.setresp values), redis.call/pcall replies of every type, errors raised from
scripts (with their "script: <sha>, on @user_script:N." suffix), the sandbox (global reads
and writes, library tables), shebang flags and EVAL_RO refusals, KEYS/ARGV, and common
patterns (read-modify-write, conditional set, counters, list/hash/zset helpers).

Left out on purpose: anything whose output legitimately differs between Redis 7.0 and Valkey
(the `server` alias, `os` and the VALKEY_* fields, redis.log's invalid-level text,
REDIS_VERSION, math.random, doubles that do not print exactly, maps and sets of more than one
element, whose order is the Lua table's), and two inputs that crash redis-server 7.0.15
(error() with a table lacking `err`, or with {ok=...}).
"""

from generators import Cmd, command

KEYS = ["sk1", "sk2", "sk3", "sl1", "sh1", "sz1"]
VALUES = ["a", "hello", "1", "42", "", "-7", "x y", "3.5"]
NUMBERS = ["0", "1", "-1", "3.7", "-3.7", "1e3", "2^53", "0.5", "-0.5", "100/3", "1e20"]


def lua_str(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lua_value(g, depth=0):
    """A Lua expression of any convertible kind."""
    r = g.randint(0, 15 if depth < 2 else 9)
    if r == 0:
        return g.pick(NUMBERS)
    if r == 1:
        return lua_str(g.pick(VALUES))
    if r == 2:
        return g.pick(["true", "false"])
    if r == 3:
        return "nil"
    if r == 4:
        return "{ok=" + lua_str(g.pick(["OK", "fine", "a\\r\\nb", ""])) + "}"
    if r == 5:
        return "{err=" + lua_str(g.pick(["ERR bad", "MYCODE oops", "x", "ERR a\\nb"])) + "}"
    if r == 6:
        return "redis.error_reply(" + lua_str(g.pick(["My err", "-CODE msg", "x"])) + ")"
    if r == 7:
        return "redis.status_reply(" + lua_str(g.pick(["PONG", "ok then"])) + ")"
    if r == 8:
        return "{double=" + g.pick(["1.5", "-0.25", "3", "0", "1e3"]) + "}"
    if r == 9:
        return "{big_number=" + lua_str(g.pick(["123", "-9999999999999999999999"])) + "}"
    if r == 10:
        return "{map={" + g.pick(["a", "b"]) + "=" + lua_value(g, depth + 1) + "}}"
    if r == 11:
        return "{set={" + g.pick(["a", "b"]) + "=true}}"
    if r == 12:
        return "{verbatim_string={format='txt',string=" + lua_str(g.pick(VALUES)) + "}}"
    if r == 13:
        return "{err=1}" if g.chance(0.5) else "{ok=1, 5}"
    # arrays, possibly with holes
    n = g.randint(0, 4)
    return "{" + ", ".join(lua_value(g, depth + 1) for _ in range(n)) + "}"


def maybe_resp3(g):
    return "redis.setresp(3); " if g.chance(0.3) else ""


def ev(g, body, keys=(), args=()):
    """EVAL, or (after SCRIPT LOAD) EVALSHA of the same body."""
    tail = [str(len(keys)), *keys, *args]
    if g.chance(0.25):
        import hashlib
        sha = hashlib.sha1(body.encode()).hexdigest()
        return [Cmd(["SCRIPT", "LOAD", body]), Cmd([g.case("EVALSHA"), sha, *tail])]
    return [Cmd([g.case("EVAL"), body, *tail])]


@command("scripting", 3)
def script_return_value(g):
    return ev(g, maybe_resp3(g) + "return " + lua_value(g))


@command("scripting", 3)
def script_call_reply(g):
    """A command's reply converted to Lua and back (setresp 2 or 3)."""
    k = g.pick(KEYS)
    cmds = [
        f"redis.call('get', KEYS[1])",
        f"redis.call('set', KEYS[1], ARGV[1])",
        f"redis.call('incr', KEYS[1])",
        f"redis.call('incrbyfloat', KEYS[1], 1.5)",
        f"redis.call('rpush', KEYS[1], ARGV[1], 'z')",
        f"redis.call('lrange', KEYS[1], 0, -1)",
        f"redis.call('hset', KEYS[1], 'f', ARGV[1])",
        f"redis.call('hgetall', KEYS[1])",
        f"redis.call('hget', KEYS[1], 'f')",
        f"redis.call('sadd', KEYS[1], ARGV[1])",
        f"redis.call('sinter', KEYS[1], 'nokey')",  # SMEMBERS order differs (7.0 hashtable)
        f"redis.call('sismember', KEYS[1], ARGV[1])",
        f"redis.call('zadd', KEYS[1], 1.5, ARGV[1])",
        f"redis.call('zscore', KEYS[1], ARGV[1])",
        f"redis.call('zrange', KEYS[1], 0, -1, 'withscores')",
        f"redis.call('type', KEYS[1])",
        f"redis.call('exists', KEYS[1])",
        f"redis.call('del', KEYS[1])",
        f"redis.call('ping')",
        f"redis.call('echo', ARGV[1])",
        f"redis.call('mget', KEYS[1], 'nokey')",
        f"redis.call('lpop', KEYS[1])",
        f"redis.call('xadd', KEYS[1], '1-1', 'f', ARGV[1])",
        f"redis.call('xrange', KEYS[1], '-', '+')",
        f"redis.call('strlen', KEYS[1])",
        f"redis.call('getrange', KEYS[1], 0, 1)",
        f"redis.call('hincrbyfloat', KEYS[1], 'n', 0.5)",
    ]
    call = g.pick(cmds)
    if g.chance(0.3):
        call = call.replace("redis.call", "redis.pcall")
    wrap = g.randint(0, 3)
    if wrap == 0:
        body = f"return {call}"
    elif wrap == 1:
        body = f"local r = {call} return {{type(r), r}}"
    elif wrap == 2:
        body = f"local r = {call} if type(r) == 'table' then return {{r.ok, r.err, r.map ~= nil, r.set ~= nil, r.double}} end return r"
    else:
        body = f"return {{{call}}}"
    return ev(g, maybe_resp3(g) + body, [k], [g.pick(VALUES)])


@command("scripting", 2)
def script_errors(g):
    body = g.pick([
        "return redis.call('nosuchcommand')",
        "return redis.pcall('nosuchcommand')",
        "return redis.call('get')",
        "return redis.pcall('get', 'a', 'b')",
        "return redis.call()",
        "return redis.call('set', 'k', {})",
        "return redis.call('subscribe', 'c')",
        "return redis.call('eval', 'return 1', 0)",
        "return redis.call('multi')",
        "return redis.call('client', 'list')",
        "return redis.call('incr', 'sh1')",
        "return redis.pcall('incr', 'sh1')",
        "return redis.call('lpush', 'sk1', 'x')",
        "return redis.pcall('lpush', 'sk1', 'x')",
        "local ok, e = pcall(redis.call, 'nosuch') return {tostring(ok), e}",
        "local ok, e = pcall(function() return redis.call('incr', 'sh1') end) return {tostring(ok), e}",
        "error('plain')",
        "error('no position', 0)",
        "error(7)",
        "error(nil)",
        "error(redis.error_reply('CODE raised'))",
        "error({err='ERR table raised'})",
        "local t = nil return t.x",
        "return 1 + {}",
        "\n\nreturn nosuchvariable",
        "return x(",
        "return 'unfinished",
        "redis.setresp(4)",
        "redis.setresp()",
        "redis.set_repl(99)",
        "redis.log(1)",
        "return redis.sha1hex()",
        "return redis.error_reply()",
        "return redis.status_reply(5)",
        "return redis.acl_check_cmd('nosuch')",
        "return redis.acl_check_cmd('get', 'k')",
    ])
    return ev(g, body)


@command("scripting", 2)
def script_sandbox(g):
    body = g.pick([
        "x = 1",
        "function f() end",
        "_G.x = 1",
        "rawset(_G, 'x', 1)",
        "setmetatable(_G, nil)",
        "string.x = 1",
        "redis.call = nil",
        "math.floor = nil",
        "table.y = 2",
        "cjson.x = 1",
        "bit.x = 1",
        "KEYS = {}",
        "KEYS[1] = 'x' return KEYS[1]",
        "return io",
        "return print",
        "return debug",
        "return loadfile",
        "return dofile",
        "return require",
        "return module",
        "return setfenv",
        "return getfenv",
        "return newproxy",
        "return type(loadstring)",
        "return loadstring('return 5')()",
        "return loadstring('y = 1')()",
        "return type(load)",
        "return type(coroutine.create)",
        "return _VERSION",
        "return getmetatable('').__index == string",
        "return ('abc'):upper()",
        # Valkey's SERVER_NAME / VALKEY_VERSION* are left out (Redis 7.0 has none).
        "local t = {} for k in pairs(redis) do if not (k:find('VALKEY') or k == 'SERVER_NAME') "
        "then t[#t + 1] = k end end table.sort(t) return t",
        "local t = {} for k in pairs(string) do t[#t + 1] = k end table.sort(t) return t",
        "local n = 0 for k in pairs(math) do n = n + 1 end return n",
        "return next(redis) ~= nil",
        "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
        "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
        "return redis.replicate_commands()",
        "return redis.set_repl(redis.REPL_ALL)",
        "return redis.log(redis.LOG_DEBUG, 'from a script')",
        "return redis.sha1hex('')",
        "return redis.sha1hex(ARGV[1])",
        "return cjson.encode({1, 2, {a = 'b'}})",
        "return cjson.decode('[1,2,{\"a\":3}]')[3].a",
        "return cjson.decode('{\"a\":null}').a == cjson.null",
        "return bit.band(7, 3)",
        "return bit.tohex(255)",
        "return bit.bxor(5, 3)",
        "return bit.lshift(1, 4)",
        "return tonumber('0x10')",
        "return string.format('%d %s', 3, 'x')",
        "return {unpack({1, 2, 3})}",
        "return select('#', 1, 2, 3)",
        "return table.concat({'a', 'b'}, ',')",
        "return math.floor(2.5)",
        "return tostring(1/0)",
        "return 1/0",
        "return -1/0",
        "return 2^63",
        "return -(2^63)",
        "return 0/0 == 0/0",
    ])
    return ev(g, body, [], [g.pick(VALUES)])


@command("scripting", 2)
def script_patterns(g):
    """What applications do: read-modify-write, conditional updates, counters."""
    k1, k2 = g.pick(KEYS[:3]), g.pick(KEYS[:3])
    body, keys, args = g.pick([
        ("local v = redis.call('get', KEYS[1]) if v == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
         [k1], [g.pick(VALUES)]),
        ("if redis.call('exists', KEYS[1]) == 0 then redis.call('set', KEYS[1], ARGV[1]) return 1 end return 0",
         [k1], [g.pick(VALUES)]),
        ("local c = redis.call('incrby', KEYS[1], ARGV[1]) if c > 10 then redis.call('set', KEYS[1], 0) end return c",
         [k1], [g.pick(["1", "5", "x"])]),
        ("local n = 0 for i = 1, #KEYS do n = n + redis.call('exists', KEYS[i]) end return n",
         [k1, k2], []),
        ("redis.call('rpush', KEYS[1], unpack(ARGV)) return redis.call('lrange', KEYS[1], 0, -1)",
         ["sl1"], [g.pick(VALUES), g.pick(VALUES)]),
        ("local t = redis.call('hgetall', KEYS[1]) local r = {} for i = 1, #t, 2 do r[#r + 1] = t[i] end return r",
         ["sh1"], []),
        ("redis.call('hset', KEYS[1], ARGV[1], ARGV[2]) return redis.call('hget', KEYS[1], ARGV[1])",
         ["sh1"], [g.pick(["f", "g"]), g.pick(VALUES)]),
        ("redis.call('zincrby', KEYS[1], ARGV[1], 'm') return redis.call('zrange', KEYS[1], 0, -1, 'withscores')",
         ["sz1"], [g.pick(["1", "2.5", "-1", "x"])]),
        ("return redis.call('mset', KEYS[1], ARGV[1], KEYS[2], ARGV[1])", [k1, k2], [g.pick(VALUES)]),
        ("local v = redis.call('get', KEYS[1]) return tonumber(v) or 'nan'", [k1], []),
        ("return {redis.call('set', KEYS[1], ARGV[1], 'nx'), redis.call('get', KEYS[1])}",
         [k1], [g.pick(VALUES)]),
        ("redis.call('select', 1) redis.call('set', KEYS[1], 'db1') local v = redis.call('get', KEYS[1]) return v",
         [k1], []),
        ("return redis.call('get', KEYS[1])", [k1], []),
        ("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", [k1, k2], [g.pick(VALUES)]),
        ("redis.call('set', KEYS[1], ARGV[1]) redis.call('expire', KEYS[1], 100) return redis.call('ttl', KEYS[1])",
         [k1], [g.pick(VALUES)]),
        # (Blocking commands inside scripts: Valkey 8 runs them, Redis 7.0 refuses them; see
        # tests/integration/test_script_valkey.py.)
        ("return redis.call('subscribe', 'ch')", [], []),
        ("return redis.pcall('multi')", [], []),
    ])
    return ev(g, maybe_resp3(g) + body if g.chance(0.2) else body, keys, args)


@command("scripting", 1)
def script_read_only(g):
    """EVAL_RO/EVALSHA_RO and `#!lua flags=no-writes` refuse writes, allow reads."""
    body = g.pick([
        "return redis.call('set', 'sk1', 'v')",
        "return redis.pcall('set', 'sk1', 'v')",
        "return redis.call('get', 'sk1')",
        "return redis.call('incr', 'sk2')",
    ])
    r = g.randint(0, 2)
    if r == 0:
        return [Cmd([g.case("EVAL_RO"), body, "0"])]
    if r == 1:
        import hashlib
        sha = hashlib.sha1(body.encode()).hexdigest()
        return [Cmd(["SCRIPT", "LOAD", body]), Cmd([g.case("EVALSHA_RO"), sha, "0"])]
    return ev(g, "#!lua flags=no-writes\n" + body)


@command("scripting", 1)
def script_shebang(g):
    body = g.pick([
        "#!lua\nreturn 1",
        "#!lua\nreturn error('line two')",
        "#!lua flags=no-writes,allow-oom\nreturn 2",
        "#!lua flags=\nreturn 3",
        "#!lua  flags=allow-stale  \nreturn 4",
        "#!lua flags=bad\nreturn 1",
        "#!lua name=x\nreturn 1",
        "#!luajit\nreturn 1",
        "#!lua",
        "#!lua flags=no-cluster,allow-cross-slot-keys\nreturn redis.call('set', 'sk1', 'v')",
    ])
    return ev(g, body)


@command("scripting", 1)
def script_admin(g):
    r = g.randint(0, 11)
    if r == 0:
        return [Cmd(["SCRIPT", "LOAD", g.pick(["return 1", "return (", "return ARGV[1]"])])]
    if r == 1:
        return [Cmd(["SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
                     "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "nosuch"])]
    if r == 2:
        return [Cmd(["SCRIPT", "FLUSH"] + g.pick([[], ["SYNC"], ["ASYNC"], ["bad"], ["sync", "x"]]))]
    if r == 3:
        return [Cmd(["SCRIPT", "KILL"])]
    if r == 4:
        return [Cmd(["SCRIPT", "HELP"])]
    if r == 5:
        return [Cmd(["EVALSHA", g.pick(["ffffffffffffffffffffffffffffffffffffffff", "abc", ""]), "0"])]
    if r == 6:
        return [Cmd(["EVAL", "return 1", g.pick(["-1", "x", "5", "99999999999999999999", "1.5"])])]
    if r == 7:
        return [Cmd(["EVAL", "return 1"])]
    if r == 8:
        return [Cmd(["SCRIPT"])]
    if r == 9:
        return [Cmd(["SCRIPT", "NOSUCH"])]
    if r == 10:
        return [Cmd(["EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"])]
    return [Cmd(["SCRIPT", "LOAD", "return 1"]),
            Cmd(["EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"])]


@command("scripting", 1)
def script_in_multi(g):
    return [Cmd(["MULTI"]), Cmd(["EVAL", "return redis.call('incr', KEYS[1])", "1", "sk3"]),
            Cmd(["EVAL", "return redis.call('get', KEYS[1])", "1", "sk3"]), Cmd(["EXEC"])]


def lib(name, body):
    return "#!lua name=" + name + "\n" + body


@command("scripting", 2)
def functions(g):
    """FUNCTION LOAD/LIST/DELETE and FCALL over one-function libraries (LIST orders libraries
    and functions as its hash tables do, so a listing shows at most one of each)."""
    r = g.randint(0, 12)
    if r == 0:
        return [Cmd(["FUNCTION", "FLUSH"]),
                Cmd(["FUNCTION", "LOAD", lib("lib1", "redis.register_function('f1', function(keys, args) "
                                                     "return redis.call('set', keys[1], args[1]) end)")]),
                Cmd(["FCALL", "f1", "1", g.pick(KEYS[:3]), g.pick(VALUES)]),
                Cmd(["FCALL_RO", "f1", "1", "sk1", "v"]),
                Cmd(["FUNCTION", "LIST"] + g.pick([[], ["WITHCODE"], ["LIBRARYNAME", "lib*"],
                                                   ["LIBRARYNAME", "x*"]]))]
    if r == 1:
        return [Cmd(["FUNCTION", "FLUSH"]),
                Cmd(["FUNCTION", "LOAD", lib("ro", "redis.register_function{function_name='get1', "
                                                   "callback=function(keys) return redis.call('get', keys[1]) end, "
                                                   "flags={'no-writes'}, description='d'}")]),
                Cmd([g.pick(["FCALL", "FCALL_RO"]), "get1", "1", g.pick(KEYS[:3])]),
                Cmd(["FUNCTION", "LIST"])]
    if r == 2:
        body = g.pick([
            "return 1",
            "redis.call('ping')",
            "redis.register_function('bad name', function() end)",
            "redis.register_function('g', function() end) redis.register_function('g', function() end)",
            "redis.register_function{function_name='g', callback=function() end, flags={'bad'}}",
            "redis.register_function{function_name='g', callback=function() end, foo=1}",
            "redis.register_function{callback=function() end}",
            "redis.register_function{function_name='g'}",
            "redis.register_function('g')",
            "redis.register_function('g', 'h')",
            "redis.register_function(1, function() end)",
            "redis.register_function('a', function() end, 3)",
            "return x(",
            "x = 1",
            "local t = string",
            "redis.log(redis.LOG_NOTICE, 'loading') redis.register_function('lg', function() return 'ok' end)",
        ])
        return [Cmd(["FUNCTION", "FLUSH"]), Cmd(["FUNCTION", "LOAD", lib("lib3", body)])]
    if r == 3:
        return [Cmd(["FUNCTION", "LOAD", g.pick(["return 1", "#!lua\nreturn 1", "#!lu name=x\nreturn 1",
                                                 "#!lua name=x foo=bar\nreturn 1", "#!lua name=a-b\nreturn 1"])])]
    if r == 4:
        return [Cmd(["FCALL", g.pick(["nosuch", "f1"]), g.pick(["0", "x", "-1", "5"])])]
    if r == 5:
        return [Cmd(["FUNCTION", "DELETE", g.pick(["lib1", "nolib", "ro"])])]
    if r == 6:
        return [Cmd(["FUNCTION", "FLUSH"] + g.pick([[], ["SYNC"], ["ASYNC"], ["bad"]]))]
    if r == 7:
        return [Cmd(["FUNCTION", "LIST"] + g.pick([["WITHCODE", "WITHCODE"], ["LIBRARYNAME"],
                                                   ["foo"], ["LIBRARYNAME", "a", "LIBRARYNAME", "b"]]))]
    if r == 8:
        return [Cmd(["FUNCTION", g.pick(["KILL", "HELP", "NOSUCH"])])]
    if r == 9:
        return [Cmd(["FUNCTION", "FLUSH"]),
                Cmd(["FUNCTION", "LOAD", lib("errs", "redis.register_function('e', function(keys, args) "
                                                     "if args[1] == 'call' then return redis.call('nosuch') end "
                                                     "return error('boom') end)")]),
                Cmd(["FCALL", "e", "0", g.pick(["call", "error"])])]
    if r == 10:
        return [Cmd(["FUNCTION", "FLUSH"]),
                Cmd(["FUNCTION", "LOAD", lib("lib1", "redis.register_function('f1', function() return 1 end)")]),
                Cmd(["FUNCTION", "LOAD"] + g.pick([[], ["REPLACE"]]) +
                    [lib("lib1", "redis.register_function('f1', function() return 2 end)")]),
                Cmd(["FUNCTION", "LOAD", lib("lib2", "redis.register_function('f1', function() return 3 end)")]),
                Cmd(["FCALL", "f1", "0"])]
    if r == 11:
        return [Cmd(["FUNCTION", "FLUSH"]),
                Cmd(["FUNCTION", "LOAD", lib("h", "local function helper(k) return redis.call('get', k) end "
                                                  "redis.register_function('hh', function(keys, args) "
                                                  "return {helper(keys[1]), #keys, #args, string.upper('a')} end)")]),
                Cmd(["FCALL", "hh", "1", g.pick(KEYS[:3]), "x"])]
    return [Cmd(["FUNCTION", "STATS"])]
