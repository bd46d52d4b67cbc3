#include "commands/registry.h"

namespace vireo {

void RegisterAllCommands() {
  CommandTable& t = Commands();
  if (t.Size() != 0) return;
  RegisterConnectionCommands(t);
  RegisterStringCommands(t);
  RegisterKeyCommands(t);
  RegisterServerCommands(t);
}

}  // namespace vireo
