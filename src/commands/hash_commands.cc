// Hash commands (being written).
#include "commands/registry.h"

namespace vireo {

void RegisterHashCommands(CommandTable& t) { (void)t; }

}  // namespace vireo
