// List commands (being written).
#include "commands/registry.h"

namespace vireo {

void RegisterListCommands(CommandTable& t) { (void)t; }

}  // namespace vireo
