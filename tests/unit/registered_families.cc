// Every unit-test process registers the command families first, as the server does at start-up:
// collection values are freed through hooks the families register, so a test that loads a list
// without them would leak it (LeakSanitizer fails such a test in the sanitizer build, where
// ctest runs each test in a process of its own).
#include <gtest/gtest.h>

#include "commands/registry.h"

namespace {

class RegisteredFamilies : public ::testing::Environment {
 public:
  void SetUp() override { vireo::RegisterAllCommands(); }
};

[[maybe_unused]] ::testing::Environment* const kRegisteredFamilies =
    ::testing::AddGlobalTestEnvironment(new RegisteredFamilies);

}  // namespace
