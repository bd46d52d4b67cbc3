// Commands as clients send them: a RESP array of bulk strings. The AOF, the replication
// stream, the cluster bus and MIGRATE all write this form.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

void AppendRespCommand(std::string* out, const std::string_view* args, size_t argc);
inline void AppendRespCommand(std::string* out, const std::vector<std::string_view>& args) {
  AppendRespCommand(out, args.data(), args.size());
}
inline std::string RespCommand(const std::vector<std::string_view>& args) {
  std::string out;
  AppendRespCommand(&out, args);
  return out;
}

}  // namespace vireo
