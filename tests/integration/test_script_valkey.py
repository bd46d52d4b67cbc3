"""Scripts and functions answer as valkey-server 8.0.1 does (../shared/reference/): error texts
of redis.call, server.* and server.register_function, NOSCRIPT, SCRIPT SHOW, blocking commands
run as if their timeout passed, case-insensitive FCALL. Each case is sent to both servers and
the replies compared; the expected text is asserted too, so the test means something without
the reference.
"""

import pytest
import redis

# (command, Valkey 8.0.1's reply; an Exception's text for errors)
CASES = [
    (("EVAL", "return redis.call('nosuch')", "0"),
     redis.ResponseError("Unknown command called from script script: "
                         "206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.")),
    (("EVAL", "return redis.pcall('get')", "0"),
     redis.ResponseError("Wrong number of args calling command from script")),
    (("EVAL", "return {pcall(redis.call)}", "0"),
     [None, b"ERR Please specify at least one argument for this call"]),
    (("EVAL", "return {pcall(redis.call, {})}", "0"),
     [None, b"ERR Command arguments must be strings or integers"]),
    (("EVAL", "return {pcall(redis.acl_check_cmd, 'nosuch')}", "0"),
     [None, b"ERR Invalid command passed to server.acl_check_cmd()"]),
    (("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
     redis.ResponseError("No matching script.")),
    # A sha of the wrong length is refused before numkeys is read.
    (("EVALSHA", "abc", "x"), redis.ResponseError("No matching script.")),
    (("EVALSHA_RO", "", "5"), redis.ResponseError("No matching script.")),
    (("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "5"),
     redis.ResponseError("Number of keys can't be greater than number of args")),
    (("SCRIPT", "LOAD", "return 'shown'"), b"ead1a9936a354498741cea8d53ef4ead83fe0fa2"),
    (("SCRIPT", "SHOW", "ead1a9936a354498741cea8d53ef4ead83fe0fa2"), b"return 'shown'"),
    (("SCRIPT", "SHOW", "EAD1A9936A354498741CEA8D53EF4EAD83FE0FA2"), b"return 'shown'"),
    (("SCRIPT", "SHOW", "ffffffffffffffffffffffffffffffffffffffff"),
     redis.ResponseError("No matching script.")),
    (("SCRIPT", "SHOW"),
     redis.ResponseError("wrong number of arguments for 'script|show' command")),
    (("EVAL", "return redis.call('blpop', 'nokey', 0)", "0"), None),
    (("EVAL", "return redis.call('brpop', 'nokey', 1)", "0"), None),
    (("EVAL", "return redis.call('brpoplpush', 'a', 'b', 0)", "0"), None),
    (("EVAL", "return redis.call('blmove', 'a', 'b', 'left', 'right', 0)", "0"), None),
    (("EVAL", "return redis.call('bzpopmin', 'z', 0)", "0"), None),
    (("EVAL", "return redis.call('bzpopmax', 'z', 0)", "0"), None),
    (("EVAL", "return redis.call('blmpop', 0, 1, 'a', 'left')", "0"), None),
    (("EVAL", "return redis.call('bzmpop', 0, 1, 'a', 'min')", "0"), None),
    (("EVAL", "return redis.call('wait', 0, 0)", "0"), 0),
    (("EVAL", "redis.call('rpush', 'bl', 'v') return redis.call('blpop', 'bl', 0)", "0"),
     [b"bl", b"v"]),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function('f', function() end, 'x')"),
     redis.ResponseError("Error registering functions: ERR wrong number of arguments to "
                         "server.register_function")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function('f')"),
     redis.ResponseError("Error registering functions: ERR calling server.register_function "
                         "with a single argument is only applicable to Lua table (representing "
                         "named arguments).")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function{callback=function() end}"),
     redis.ResponseError("Error registering functions: ERR server.register_function must get "
                         "a function name argument")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function{function_name='g'}"),
     redis.ResponseError("Error registering functions: ERR server.register_function must get "
                         "a callback argument")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function{function_name='g', "
      "callback=function() end, foo=1}"),
     redis.ResponseError("Error registering functions: ERR unknown argument given to "
                         "server.register_function")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function{function_name='g', "
      "callback='x'}"),
     redis.ResponseError("Error registering functions: ERR callback argument given to "
                         "server.register_function must be a function")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function('g', 1)"),
     redis.ResponseError("Error registering functions: ERR second argument to "
                         "server.register_function must be a function")),
    (("FUNCTION", "LOAD", "#!lua name=a\nserver.register_function('g', function() end)\n"
      "server.register_function('g', function() end)"),
     redis.ResponseError("Error registering functions: ERR Function already exists in the "
                         "library")),
    (("FUNCTION", "LOAD", "#!lua name=d1\nserver.register_function{function_name='Ab', "
      "callback=function() return 'Ab' end, description=1}"), b"d1"),
    (("FCALL", "ab", "0"), b"Ab"),
    (("FCALL", "AB", "0"), b"Ab"),
    (("FCALL_RO", "aB", "0"),
     redis.ResponseError("Can not execute a script with write flag using *_ro command.")),
    (("FUNCTION", "LOAD", "#!lua name=d2\nserver.register_function('aB', function() end)"),
     redis.ResponseError("Function aB already exists")),
    (("FUNCTION", "LOAD", "#!lua name=d3\nserver.register_function('x', function() end)\n"
      "server.register_function('X', function() end)"), b"d3"),
    (("FUNCTION", "LOAD", "#!lua name=D1\nserver.register_function('q', function() end)"),
     b"D1"),
    (("FUNCTION", "LOAD", "#!lua name=d4\nlocal rf = server.register_function\n"
      "server.register_function('late', function() return rf('x', function() end) end)"), b"d4"),
    (("EVAL", "return redis.setresp()", "0"),
     redis.ResponseError("server.setresp() requires one argument. script: "
                         "76da64e28014e7c9ad76db33c3918c53d81a3d7e, on @user_script:1.")),
    (("EVAL", "return {pcall(redis.set_repl)}", "0"),
     [None, b"ERR server.set_repl() requires one argument."]),
    (("EVAL", "return {pcall(redis.log)}", "0"),
     [None, b"ERR server.log() requires two arguments or more."]),
    (("EVAL", "return {pcall(redis.acl_check_cmd, 'get', {})}", "0"),
     [None, b"ERR Command arguments must be strings or integers"]),
    (("EVAL", "return {redis.acl_check_cmd('config', 'get'), redis.acl_check_cmd('get', 1)}",
      "0"), [1, 1]),
    (("EVAL", "return {pcall(redis.acl_check_cmd, 'config', 'nosuch')}", "0"),
     [None, b"ERR Invalid command passed to server.acl_check_cmd()"]),
    # Errors of the wrapped stock functions read as if the script called them directly.
    (("EVAL", "return cjson.decode('[1,2')", "0"),
     redis.ResponseError("user_script:1: Expected comma or array end but found T_END at "
                         "character 5 script: c107001b5ba2ff860ee2557f64da37c4767ef4bd, on "
                         "@user_script:1.")),
    (("EVAL", "return {pcall(cjson.encode)}", "0"),
     [None, b"bad argument #1 to '?' (expected 1 argument)"]),
    (("EVAL", "return {pcall(function() return cjson.encode() end)}", "0"),
     [None, b"user_script:1: bad argument #1 to 'encode' (expected 1 argument)"]),
    (("EVAL", "local f = table.insert f({}, 'x', 1)", "0"),
     redis.ResponseError("user_script:1: bad argument #2 to 'f' (number expected, got string) "
                         "script: b2eeb10e21a55fb9805856bd47c95172bebebb80, on @user_script:1.")),
    (("EVAL", "return {pcall(table.insert, {}, 'x', 1)}", "0"),
     [None, b"bad argument #2 to '?' (number expected, got string)"]),
    # Lua numbers as redis.call arguments: Valkey 8's text, not %.17g.
    (("EVAL", "local t = {} for i, v in ipairs({0.1, 1/3, 1e17, 2^62, 1e-7, -0.0, 1/0, 1e23}) "
      "do redis.call('set', 'n', v) t[i] = redis.call('get', 'n') end return t", "0"),
     [b"0.1", b"0.3333333333333333", b"100000000000000000", b"4611686018427387904", b"1e-7",
      b"0", b"-inf", b"99999999999999990000000"]),  # sic: Valkey 8.0.1 prints 1/0 so
    (("FCALL", "late", "0"),
     redis.ResponseError("server.register_function can only be called on FUNCTION LOAD command "
                         "script: late, on @user_function:3.")),
]


def answer(client, cmd):
    try:
        return client.execute_command(*cmd)
    except redis.ResponseError as e:
        return redis.ResponseError(str(e))


def same(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and str(a) == str(b)
    return a == b


@pytest.mark.parametrize("against", ["expected", "valkey"])
def test_scripts_and_functions_answer_as_valkey(start_server, request, against):
    vireo = start_server().client(decode_responses=False)
    ref = None
    if against == "valkey":
        ref = request.getfixturevalue("valkey_process").client(decode_responses=False)
        ref.flushall()
        ref.function_flush()
        ref.script_flush()
    for cmd, expected in CASES:
        got = answer(vireo, cmd)
        want = answer(ref, cmd) if ref is not None else expected
        assert same(got, want), (cmd, got, want)
    # acl_check_cmd answers for the script's caller.
    for c in [vireo, ref] if ref is not None else [vireo]:
        c.execute_command("ACL", "SETUSER", "lim", "on", "nopass", "+@all", "-get", "~k*")
        c.execute_command("AUTH", "lim", "x")
        assert c.eval("return {redis.acl_check_cmd('get', 'k'), redis.acl_check_cmd('set', 'k', "
                      "'v'), redis.acl_check_cmd('set', 'other', 'v')}", 0) == [None, 1, None]
        # A refused call: Valkey 8's NOPERM text after "ACL failure in script: ".
        for script, text in [("return redis.call('get', 'k')",
                              "User lim has no permissions to run the 'get' command script: "),
                             ("return redis.call('set', 'other', 'v')",
                              "No permissions to access a key script: ")]:
            with pytest.raises(redis.ResponseError) as e:
                c.eval(script, 0)
            assert str(e.value).startswith("ACL failure in script: " + text), str(e.value)
        c.execute_command("AUTH", "default", "x")
        c.execute_command("ACL", "DELUSER", "lim")
