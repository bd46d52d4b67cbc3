// String family (placeholder until the full family lands).
#include "commands/registry.h"

namespace vireo {

void RegisterStringCommands(CommandTable&) {}

}  // namespace vireo
