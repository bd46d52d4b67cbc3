// Server family (placeholder).
#include "commands/registry.h"

namespace vireo {

void RegisterServerCommands(CommandTable&) {}

}  // namespace vireo
