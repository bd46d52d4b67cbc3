// One Register function per command family; RegisterAllCommands calls them all.
#pragma once

#include "commands/command_table.h"

namespace vireo {

// The Redis version we report (INFO redis_version, HELLO): clients gate features on it.
inline constexpr const char* kCompatVersion = "7.2.4";
// The Valkey release whose behaviour Vireo follows (scripts' server.VALKEY_VERSION).
inline constexpr const char* kValkeyCompatVersion = "8.0.1";

// enable-scripting no: removes the commands that run or store Lua code (EVAL*, SCRIPT, FCALL*,
// FUNCTION) from the process-wide table, as if renamed to "" (rename-command).
void RemoveScriptingCommands();

void RegisterConnectionCommands(CommandTable& t);
void RegisterReplicationCommands(CommandTable& t);
void RegisterClusterCommands(CommandTable& t);
// CLUSTER SLOT-STATS (cluster_slot_stats_command.cc), added to CLUSTER by the above.
CommandSpec ClusterSlotStatsSpec();
// CLUSTERSCAN (clusterscan_command.cc), registered with the cluster commands.
CommandSpec ClusterScanSpec();
void RegisterMigrateCommand(CommandTable& t);
void RegisterStringCommands(CommandTable& t);
void RegisterKeyCommands(CommandTable& t);
void RegisterExpireCommands(CommandTable& t);
void RegisterDbCommands(CommandTable& t);
void RegisterServerCommands(CommandTable& t);
void RegisterClientCommands(CommandTable& t);
void RegisterListCommands(CommandTable& t);
void RegisterHashCommands(CommandTable& t);
void RegisterSetCommands(CommandTable& t);
void RegisterZSetCommands(CommandTable& t);
void RegisterSortCommands(CommandTable& t);
void RegisterStreamCommands(CommandTable& t);
void RegisterBitmapCommands(CommandTable& t);
void RegisterHyperLogLogCommands(CommandTable& t);
void RegisterGeoCommands(CommandTable& t);
void RegisterTransactionCommands(CommandTable& t);
void RegisterPubSubCommands(CommandTable& t);
void RegisterScriptCommands(CommandTable& t);
void RegisterFunctionCommands(CommandTable& t);
void RegisterPersistenceCommands(CommandTable& t);
void RegisterLatencyCommands(CommandTable& t);
void RegisterModuleCommand(CommandTable& t);
void RegisterLolwutCommand(CommandTable& t);
void RegisterAclCommands(CommandTable& t);

}  // namespace vireo
