// ZSet commands (being written).
#include "commands/registry.h"

namespace vireo {

void RegisterZSetCommands(CommandTable& t) { (void)t; }

}  // namespace vireo
