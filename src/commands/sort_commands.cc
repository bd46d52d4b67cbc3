// Sort commands (being written).
#include "commands/registry.h"

namespace vireo {

void RegisterSortCommands(CommandTable& t) { (void)t; }

}  // namespace vireo
