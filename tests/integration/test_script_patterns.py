"""string.find/match/gmatch/gsub run on Vireo's own pattern matcher (src/scripting/lua_pattern.h):
the same results and error texts as valkey-server 8.0.1's Lua 5.1 (../shared/reference/, skipped
where absent), for a list of chosen cases and thousands of random ones, and a match that
backtracks for hours is stopped by SCRIPT KILL and FUNCTION KILL like any script code (library
code cannot reach `string` while loading, as in Valkey). Nothing asserts on time: busy states
are awaited with wait_for.
"""

import random

import pytest
import redis

from conftest import kill_busy_script


# Runs groups of ARGV (function, subject, pattern, arg3, arg4) and answers each result as
# text: pcall's values joined by ','.
RUNNER = """
local function pack(...)
  local t = {}
  for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
  return table.concat(t, ',')
end
local function all_matches(s, p)
  local t = {}
  for a, b in string.gmatch(s, p) do
    t[#t + 1] = tostring(a) .. '/' .. tostring(b)
    if #t > 50 then break end
  end
  return table.concat(t, ';')
end
local out = {}
for i = 1, #ARGV, 5 do
  local fn, s, p, a3, a4 = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  if fn == 'find' then
    out[#out + 1] = pack(pcall(string.find, s, p, tonumber(a3), a4 == '1'))
  elseif fn == 'match' then
    out[#out + 1] = pack(pcall(string.match, s, p, tonumber(a3)))
  elseif fn == 'gsub' then
    out[#out + 1] = pack(pcall(string.gsub, s, p, a3, tonumber(a4)))
  else
    out[#out + 1] = pack(pcall(all_matches, s, p))
  end
end
return out
"""

# Expressions whose pcall results both servers must give alike.
CASES = [
    "string.find('hello world', 'o w')", "string.find('hello', 'l+')",
    "string.find('abc', 'b', -1)", "string.find('abc', 'b', -10)", "string.find('abc', '', 10)",
    "string.find('abc', '', 4)", "string.find('', '')", "string.find('abc', '$')",
    "string.find('a+b', '+', 1, true)", "string.find('a.b', '.', 2, true)",
    "string.find('a\\0b', 'a\\0b')", "string.match('a\\0b', 'a\\0b')",
    "string.find('a\\0b.', '\\0b.')", "string.find(12345, 34)", "string.find('x', 'x', '2')",
    "string.match('key = value', '(%w+)%s*=%s*(%w+)')", "string.match('hello', '()ll()')",
    "string.match('  trim  ', '^%s*(.-)%s*$')", "string.match('f(a(b)c)', '%b()')",
    "string.match('THE (quick) fox', '%f[%a]%a+', 5)", "string.match('abab', '(ab)%1')",
    "string.match('[[x]]', '%[(%b[])%]')", "string.match('2024-01-02', '(%d+)-(%d+)-(%d+)')",
    "string.match('a', '(a')", "string.match('a', 'a)')", "string.match('a', '%')",
    "string.match('a', '[a')", "string.match('a', '[]')", "string.match('a', '%b')",
    "string.match('a', '%fa')", "string.match('a', '%1')", "string.match('a', '(()')",
    "string.match(string.rep('a', 40), string.rep('(a)', 33))",
    "string.match(string.rep('a', 40), string.rep('(a)', 32))",
    "string.gsub('hello world', '(o)', '[%1]', 1)", "string.gsub('abc', '', '-')",
    "string.gsub('abc', '%w', {a = 1, b = true})",
    "string.gsub('abc', '%w', function(c) if c == 'b' then return nil end return c:upper() end)",
    "string.gsub('abc', '(%w)', '%2')", "string.gsub('abc', '^a', 'x')",
    "string.gsub('abc', 'b', '%')", "string.gsub('abc', 'b', '%%%0%x')",
    "string.gsub('aaa', 'a', 'b', 2^32)", "string.gsub('aaa', 'a', 'b', 2^32 + 1)",
    "string.gsub('aaa', 'a', 'b', -1)", "string.gsub('aaa', 'a', 'b', 0)",
    "string.gsub('abc', 'b', {b = {}})", "string.gsub('abc', 'b')", "string.gsub('abc', 'b', 7)",
    "string.gsub('abc', '()', '%1')", "string.gsub('hello', 'l*', 'x')",
    "string.gsub('abc', '.', {a = 'x'}, 2)", "string.gsub('a,b,,c', ',', ';')",
    "string.find()", "string.match('x')", "string.gmatch('x')", "string.gsub('x', 'y')",
    "('x'):rep(3):gsub('x', '%0%0')", "string.find('^a', '^a')",
]


@pytest.fixture(scope="module")
def valkey(valkey_process):
    c = valkey_process.client(decode_responses=False)
    yield c
    c.close()


def both(sr, valkey, script, *args):
    def run(r):
        try:
            return r.eval(script, 0, *args)
        except redis.ResponseError as e:
            return ("error", str(e))
    return run(sr), run(valkey)


def test_chosen_cases_match_valkey(server, valkey):
    sr = server.client(decode_responses=False)
    for case in CASES:
        script = ("local r = {pcall(function() return %s end)} local t = {} "
                  "for i = 1, table.maxn(r) do t[i] = tostring(r[i]) end return t" % case)
        ours, theirs = both(sr, valkey, script)
        assert ours == theirs, case


def random_pattern(rng):
    tokens = ["a", "b", "c", ".", "%a", "%d", "%s", "%w", "%p", "%A", "[ab]", "[^a]", "[a-c]",
              "[%d.]", "%b()", "%f[%a]", "%f[%A]", "(", ")", "()", "%1", "%2", "*", "+", "-",
              "?", "$", "%", "[", " ", "%.", "%(", "^"]
    p = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 6)))
    return ("^" if rng.random() < 0.15 else "") + p


def random_subject(rng):
    return "".join(rng.choice("abc1 (),.[]%^$-") for _ in range(rng.randint(0, 10)))


def test_random_patterns_match_valkey(server, valkey):
    sr = server.client(decode_responses=False)
    rng = random.Random(2026)
    for _ in range(8):
        args = []
        for _ in range(300):
            fn = rng.choice(["find", "match", "gmatch", "gsub"])
            a3 = a4 = ""
            if fn in ("find", "match"):
                a3 = str(rng.randint(-12, 12)) if rng.random() < 0.4 else ""
                a4 = "1" if fn == "find" and rng.random() < 0.2 else ""
            elif fn == "gsub":
                a3 = rng.choice(["x", "%0", "%1", "%2", "%", "<%0>", "", "%%"])
                a4 = str(rng.randint(-1, 3)) if rng.random() < 0.3 else ""
            args += [fn, random_subject(rng), random_pattern(rng), a3, a4]
        ours, theirs = both(sr, valkey, RUNNER, *args)
        assert isinstance(ours, list)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a == b, args[i * 5:i * 5 + 5]


BACKTRACKING = [
    "return string.find(string.rep('a', 40), string.rep('a*', 30) .. 'b')",
    "return string.gsub(string.rep('a', 1000000), '.-b', '')",
    "return string.match(string.rep('(', 1000000), '%b()')",
    "local n = 0 for w in string.gmatch(string.rep('a', 40), string.rep('a-', 25) .. 'b') "
    "do n = n + 1 end return n",
]


@pytest.mark.parametrize("script", BACKTRACKING)
def test_backtracking_match_is_stopped_by_script_kill(start_server, script):
    s = start_server("--busy-reply-threshold", "20")
    err = kill_busy_script(s, "EVAL", script, "0")
    assert err.startswith("ERR Script killed by user with SCRIPT KILL... script: ")


def test_backtracking_match_in_a_function_is_stopped_by_function_kill(start_server):
    s = start_server("--busy-reply-threshold", "20")
    assert s.client().function_load(
        "#!lua name=slow\nserver.register_function('slow', function() return string.find("
        "string.rep('a', 40), string.rep('a*', 30) .. 'b') end)") in ("slow", b"slow")
    err = kill_busy_script(s, "FCALL", "slow", "0", kill=("FUNCTION", "KILL"))
    assert err.startswith("ERR Script killed by user with FUNCTION KILL...")
