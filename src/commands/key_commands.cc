// Keys family (placeholder).
#include "commands/registry.h"

namespace vireo {

void RegisterKeyCommands(CommandTable&) {}

}  // namespace vireo
