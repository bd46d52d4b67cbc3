#include "commands/scan_options.h"

#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "common/crc16.h"
#include "common/numbers.h"
#include "store/value.h"

namespace vireo {
namespace {

// Valkey 8 refuses a TYPE that names no type while parsing (Redis 7.0 matched nothing).
bool IsTypeName(std::string_view name) {
  for (ObjType t : {ObjType::kString, ObjType::kList, ObjType::kSet, ObjType::kZSet, ObjType::kHash,
                    ObjType::kStream}) {
    if (EqualsIgnoreCase(name, TypeName(t))) return true;
  }
  return false;
}

}  // namespace

bool ParseScanOptions(CommandContext& ctx, size_t first, const char* flag, bool allow_type,
                      ScanOptions* out, bool allow_slot) {
  for (size_t i = first; i < ctx.argc();) {
    bool has_value = i + 1 < ctx.argc();
    std::string_view word = ctx.arg(i);
    if (has_value && EqualsIgnoreCase(word, "count")) {
      if (!ParseInt64(ctx.arg(i + 1), &out->count)) {
        ctx.reply.Error(errors::kNotInteger);
        return false;
      }
      if (out->count < 1) {
        ctx.reply.Error(errors::kSyntax);
        return false;
      }
      i += 2;
    } else if (has_value && EqualsIgnoreCase(word, "match")) {
      out->pattern = ctx.arg(i + 1);
      i += 2;
    } else if (allow_type && has_value && EqualsIgnoreCase(word, "type")) {
      out->type = ctx.arg(i + 1);
      out->has_type = true;
      if (!IsTypeName(out->type)) {
        ctx.reply.Error("ERR unknown type name '" + std::string(out->type) + "'");
        return false;
      }
      i += 2;
    } else if (allow_slot && has_value && EqualsIgnoreCase(word, "slot")) {
      // The repetition is refused before the value is read.
      if (out->slot >= 0) {
        ctx.reply.Error(errors::kScanSlotRepeated);
        return false;
      }
      int64_t slot;
      if (!ParseInt64(ctx.arg(i + 1), &slot) || slot < 0 || slot >= kClusterSlots) {
        ctx.reply.Error(errors::kInvalidSlot);
        return false;
      }
      out->slot = static_cast<int>(slot);
      i += 2;
    } else if (flag != nullptr && EqualsIgnoreCase(word, flag)) {
      out->flag = true;
      ++i;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

}  // namespace vireo
