#include "protocol/command_encoder.h"

#include <charconv>

namespace vireo {

void AppendRespCommand(std::string* out, const std::string_view* args, size_t argc) {
  char num[24];
  auto header = [&](char type, size_t n) {
    out->push_back(type);
    auto r = std::to_chars(num, num + sizeof(num), n);
    out->append(num, static_cast<size_t>(r.ptr - num));
    out->append("\r\n", 2);
  };
  header('*', argc);
  for (size_t i = 0; i < argc; ++i) {
    header('$', args[i].size());
    out->append(args[i]);
    out->append("\r\n", 2);
  }
}

}  // namespace vireo
