// Set commands (being written).
#include "commands/registry.h"

namespace vireo {

void RegisterSetCommands(CommandTable& t) { (void)t; }

}  // namespace vireo
