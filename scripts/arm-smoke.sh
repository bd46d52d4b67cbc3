#!/usr/bin/env bash
# Usage: arm-smoke.sh SERVER-COMMAND...   e.g.
#   arm-smoke.sh qemu-aarch64-static -L /usr/aarch64-linux-gnu build-aarch64/vireo-server
# Starts the server (under qemu-user for a cross build; a host binary works too) on a free
# loopback port in a temp dir, writes a string, a counter, a list, a hash and a stream with the
# host's redis-cli, SAVEs, stops it, starts it again from the dump and reads everything back.
# EXPECT_BITS (32/64) and EXPECT_ALLOCATOR (libc/jemalloc-...) check INFO when set.
set -euo pipefail

(($# > 0)) || { echo "usage: arm-smoke.sh SERVER-COMMAND..." >&2; exit 2; }
dir=$(mktemp -d)
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pid=

cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

cli() { redis-cli -p "$port" "$@"; }

fail() {
  echo "arm-smoke: $*" >&2
  echo "arm-smoke: server log:" >&2
  tail -n 30 "$dir/server.log" >&2 || true
  exit 1
}

# expect WANT COMMAND...: the reply (redis-cli's raw output, lines joined by spaces).
expect() {
  local want=$1 got
  shift
  got=$(cli "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//') || true
  [[ $got == "$want" ]] || fail "$* gave '$got', expected '$want'"
}

start() {
  "$@" --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" >>"$dir/server.log" 2>&1 &
  pid=$!
  # Under qemu a start takes a second or two; loading is not instant either.
  for _ in $(seq 1 600); do
    [[ $(cli PING 2>/dev/null) == PONG ]] && return 0
    kill -0 "$pid" 2>/dev/null || fail "the server exited at start"
    sleep 0.1
  done
  fail "no PONG after 60 s"
}

stop() {
  cli SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" || true
  pid=
}

# info_field SECTION NAME: one INFO field's value.
info_field() { cli INFO "$1" | tr -d '\r' | sed -n "s/^$2://p"; }

began=$(date +%s)
start "$@"
if [[ -n ${EXPECT_BITS:-} && $(info_field server arch_bits) != "$EXPECT_BITS" ]]; then
  fail "arch_bits is $(info_field server arch_bits), expected $EXPECT_BITS"
fi
if [[ -n ${EXPECT_ALLOCATOR:-} && $(info_field memory mem_allocator) != "$EXPECT_ALLOCATOR"* ]]; then
  fail "mem_allocator is $(info_field memory mem_allocator), expected $EXPECT_ALLOCATOR"
fi
[[ $(info_field memory used_memory) -gt 0 ]] || fail "used_memory is 0"

expect OK SET greeting "hello arm"
expect "hello arm" GET greeting
expect 1 INCR counter
expect 42 INCRBY counter 41
expect 3 LPUSH list a b c
expect 2 HSET hash f1 v1 f2 v2
expect 1-1 XADD stream 1-1 temp 21.5
expect 1-2 XADD stream 1-2 temp 21.7
expect 5 DBSIZE
expect OK SAVE
[[ -s $dir/dump.rdb ]] || fail "SAVE wrote no dump.rdb"
stop

start "$@"
expect 5 DBSIZE
expect "hello arm" GET greeting
expect 43 INCR counter
expect "c b a" LRANGE list 0 -1
expect "v2" HGET hash f2
expect 2 XLEN stream
expect "1-2 temp 21.7" XRANGE stream 1-2 +
stop
echo "arm-smoke: ok ($(($(date +%s) - began)) s): SET/GET/INCR/LPUSH/HSET/XADD, SAVE, restart from the dump"
