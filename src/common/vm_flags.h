// Test support: the kernel's VmFlags for an address (/proc/self/smaps), to see whether a
// mapping was advised for huge pages ("hg").
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace vireo {

// The "VmFlags:" line of the mapping that holds addr ("" if none does).
inline std::string VmFlagsOf(uintptr_t addr) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = addr >= lo && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

}  // namespace vireo
