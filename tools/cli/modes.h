// vireo-cli's special modes, each run to completion on a connected session. They return the
// process exit code (or exit on fatal errors with redis-cli's messages).
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "cli/session.h"

namespace vireo::cli {

// --pipe: streams RESP from stdin to the server while reading replies, then waits for a final
// ECHO with a random marker; prints "errors: N, replies: M".
int RunPipeMode(Session* session);

// --scan [--pattern p] [--count n]: prints every key.
int RunScanMode(Session* session);
// --bigkeys / --memkeys: biggest key per type and per-type totals.
int RunBigKeysMode(Session* session, bool memkeys);
// --hotkeys: keys with the highest LFU counters.
int RunHotKeysMode(Session* session);

// --latency / --latency-history: PING round trips in milliseconds.
int RunLatencyMode(Session* session);
// --stat: a line of server counters per interval.
int RunStatMode(Session* session);
// --intrinsic-latency <seconds>: scheduling latency of this machine (no server involved).
int RunIntrinsicLatencyMode(int seconds);

// --eval <file> keys , args
int RunEvalMode(Session* session, const std::string& file, const std::vector<std::string>& args);

// Set by SIGINT in the long-running modes, so they stop and print their summary.
extern volatile sig_atomic_t g_stop_requested;

// "1.50K" style byte counts as redis-cli prints them.
std::string BytesToHuman(long long n);

// The part of an INFO text after "field:" (or "field=") up to '\r' or ',': redis-cli's
// getInfoField. Returns false when field does not occur.
bool InfoField(const std::string& info, const std::string& field, std::string* value);

}  // namespace vireo::cli
