// string.find, string.match, string.gmatch and string.gsub over Vireo's own pattern matcher
// (lua_pattern.h): stock Lua 5.1's results, argument rules and error texts, but a match that
// runs long calls the state's count hook as the VM would, so a runaway pattern meets the busy
// script check, SCRIPT KILL and FUNCTION LOAD's timeout like any other script code.
#pragma once

struct lua_State;

namespace vireo {

// Replaces find, match, gmatch and gsub in the table at the top of the stack (the string
// library).
void SetPatternFunctions(lua_State* L);

}  // namespace vireo
