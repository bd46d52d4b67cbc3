#include "commands/registry.h"

namespace vireo {

void RegisterAllCommands() {
  CommandTable& t = Commands();
  if (t.Size() != 0) return;
  RegisterConnectionCommands(t);
  RegisterStringCommands(t);
  RegisterKeyCommands(t);
  RegisterExpireCommands(t);
  RegisterDbCommands(t);
  RegisterServerCommands(t);
  RegisterClientCommands(t);
  RegisterListCommands(t);
  RegisterHashCommands(t);
  RegisterSetCommands(t);
  RegisterZSetCommands(t);
  RegisterSortCommands(t);
  RegisterStreamCommands(t);
  RegisterBitmapCommands(t);
  RegisterHyperLogLogCommands(t);
  RegisterGeoCommands(t);
  RegisterTransactionCommands(t);
  RegisterPubSubCommands(t);
  RegisterScriptCommands(t);
  RegisterFunctionCommands(t);
  RegisterPersistenceCommands(t);
  RegisterReplicationCommands(t);
  RegisterClusterCommands(t);
  RegisterMigrateCommand(t);
  RegisterLatencyCommands(t);
  RegisterModuleCommand(t);
  RegisterLolwutCommand(t);
  RegisterAclCommands(t);
}

}  // namespace vireo
