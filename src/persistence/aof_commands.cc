#include "persistence/aof_commands.h"

#include "protocol/command_encoder.h"
#include "store/value.h"

namespace vireo {

void AppendFunctionLoads(std::string* out, const std::vector<std::string>& codes) {
  for (const std::string& code : codes) {
    std::string_view load[] = {"FUNCTION", "LOAD", code};
    AppendRespCommand(out, load, 3);
  }
}

void AppendSelect(std::string* out, int db) {
  std::string index = std::to_string(db);
  std::string_view select[] = {"SELECT", index};
  AppendRespCommand(out, select, 2);
}

void AppendTimestamp(std::string* out, int64_t unix_s) {
  *out += "#TS:";
  *out += std::to_string(unix_s);
  *out += "\r\n";
}

void AppendKeyCommands(std::string* out, const Entry* e, const RdbWriteOptions& options) {
  std::string_view key = e->Key();
  if (e->type() == ObjType::kString) {
    char tmp[24];
    std::string_view set[] = {"SET", key, StringValue(e, tmp)};
    AppendRespCommand(out, set, 3);
  } else {
    std::string payload = DumpPayload(e, options);
    std::string_view restore[] = {"RESTORE", key, "0", payload};
    AppendRespCommand(out, restore, 4);
  }
  if (e->expire_ms() != 0) {
    std::string when = std::to_string(e->expire_ms());
    std::string_view expire[] = {"PEXPIREAT", key, when};
    AppendRespCommand(out, expire, 3);
  }
}

}  // namespace vireo
