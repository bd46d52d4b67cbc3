// --cluster <command>: the cluster manager (create, check, info, fix, reshard, rebalance,
// add-node, del-node, call, set-timeout, backup, help) as redis-cli 7.0 runs it.
#pragma once

#include "cli/options.h"

namespace vireo::cli {

// Runs the --cluster command in options.cluster; returns the exit code.
int RunClusterManager(const Options& options);

}  // namespace vireo::cli
