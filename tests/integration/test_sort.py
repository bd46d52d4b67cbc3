"""SORT and SORT_RO end to end with redis-py: lists, sets, sorted sets, BY/GET over strings and
hash fields, STORE. Every expectation holds for redis-server 7.0 too, except the stored list's
encoding (7.0 always says quicklist)."""

import random

import pytest
import redis


def error_of(client, *args):
    with pytest.raises(redis.ResponseError) as info:
        client.execute_command(*args)
    return str(info.value)


def test_sort_large_list_matches_python(sr):
    rng = random.Random(5)
    values = [rng.randint(-10**6, 10**6) for _ in range(10000)]
    sr.rpush("l", *values)
    assert [int(v) for v in sr.sort("l")] == sorted(values)
    assert [int(v) for v in sr.sort("l", desc=True, start=10, num=5)] == \
        sorted(values, reverse=True)[10:15]
    words = [f"w{rng.randint(0, 10**6)}" for _ in range(1000)]
    sr.sadd("s", *words)
    assert sr.sort("s", alpha=True) == sorted(set(words))


def test_sort_by_and_get_with_hashes(sr):
    sr.rpush("users", 1, 2, 3)
    for uid, name, age in ((1, "carol", 31), (2, "alice", 25), (3, "bob", 40)):
        sr.hset(f"user:{uid}", mapping={"name": name, "age": age})
        sr.set(f"score:{uid}", 100 - age)
    assert sr.sort("users", by="user:*->age") == ["2", "1", "3"]
    assert sr.sort("users", by="user:*->name", alpha=True, get=["#", "user:*->name"]) == \
        ["2", "alice", "3", "bob", "1", "carol"]
    assert sr.sort("users", by="score:*", get="user:*->name") == ["bob", "carol", "alice"]
    assert sr.sort("users", by="nosort", get="user:*->missing") == [None, None, None]
    assert sr.execute_command("SORT_RO", "users", "BY", "user:*->age", "DESC") == ["3", "1", "2"]


def test_sort_store_and_errors(sr):
    sr.sadd("s", "b", "a", "c")
    sr.set("dst", "old", ex=100)
    assert sr.sort("s", by="nosort", store="dst") == 3
    assert sr.lrange("dst", 0, -1) == ["a", "b", "c"]
    assert sr.ttl("dst") == -1
    assert sr.type("dst") == "list"
    assert sr.sort("nokey", store="dst") == 0
    assert sr.exists("dst") == 0
    sr.set("str", "x")
    assert error_of(sr, "SORT", "str").startswith("WRONGTYPE")
    assert error_of(sr, "SORT_RO", "s", "STORE", "d") == "syntax error"
    assert error_of(sr, "SORT", "s") == "One or more scores can't be converted into double"


def test_sort_of_a_set_in_a_script_is_alphabetical(sr):
    """A script's writes must not depend on a set's internal order: BY nosort sorts it."""
    sr.sadd("s", "c", "a", "b", "10", "2", "zz")
    sr.rpush("l", "c", "a", "b")
    for cmd in ("sort", "sort_ro"):
        sort = f"return redis.call('{cmd}', KEYS[1], unpack(ARGV))"
        assert sr.eval(sort, 1, "s", "BY", "nosort") == ["10", "2", "a", "b", "c", "zz"]
        assert sr.eval(sort, 1, "s", "BY", "nosort", "DESC", "LIMIT", 1, 2) == ["c", "b"]
        assert sr.eval(sort, 1, "s", "BY", "nosort", "LIMIT", 1, 2) == ["2", "a"]
        assert sr.eval(sort, 1, "l", "BY", "nosort") == ["c", "a", "b"]  # lists keep order


def test_sort_sorted_set_native_order(sr):
    sr.zadd("z", {"a": 3, "b": 1, "c": 2})
    assert sr.sort("z", by="nosort") == ["b", "c", "a"]
    assert sr.sort("z", by="nosort", desc=True, start=0, num=2) == ["a", "c"]
    assert sr.sort("z", alpha=True) == ["a", "b", "c"]


def test_sort_resp3_reply(raw):
    raw.call("HELLO", "3")
    raw.call("RPUSH", "l", "2", "1")
    assert raw.call("SORT", "l") == [b"1", b"2"]
    assert raw.call("SORT", "l", "GET", "nostar") == [None, None]
