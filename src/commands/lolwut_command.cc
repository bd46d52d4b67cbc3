// LOLWUT [VERSION v [...]]: computer art and the server's version, as Valkey has it. VERSION 5
// draws Georg Nees' "Schotter" (1968) in braille: a column of squares that fall into
// increasing disorder from top to bottom. Any other version prints the version line only.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/braille_canvas.h"
#include "common/numbers.h"

namespace vireo {
namespace {

// Valkey 8.0.1's line, word for word ("Redis ver." with Valkey's version).
const std::string kVersionLine = std::string("Redis ver. ") + kValkeyCompatVersion + "\n";

// Schotter on a canvas `columns` characters wide, squares_per_row by squares_per_col squares.
std::string DrawSchotter(int columns, int squares_per_row, int squares_per_col) {
  const int width = columns * 2;  // two pixels per braille character
  const int padding = width > 4 ? 2 : 0;
  // A fractional side fills the width exactly; the height follows, so the text has as many
  // lines as Valkey's drawing.
  const double side = static_cast<double>(width - 2 * padding) / squares_per_row;
  BrailleCanvas canvas(width, static_cast<int>(side * squares_per_col + 2 * padding));
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double half = side / 2;
  for (int row = 0; row < squares_per_col; ++row) {
    // The first row stands still; the last is turned up to 45 degrees and shifted up to a
    // third of a square.
    const double disorder = static_cast<double>(row) / squares_per_col;
    for (int col = 0; col < squares_per_row; ++col) {
      const double angle = unit(rng) * disorder * M_PI / 4;
      const double cx = padding + col * side + half + unit(rng) * disorder * side / 3;
      const double cy = padding + row * side + half + unit(rng) * disorder * side / 3;
      int xs[4], ys[4];
      for (int k = 0; k < 4; ++k) {
        const double corner = angle + M_PI / 4 + k * M_PI / 2;
        xs[k] = static_cast<int>(std::lround(cx + half * M_SQRT2 * std::cos(corner)));
        ys[k] = static_cast<int>(std::lround(cy + half * M_SQRT2 * std::sin(corner)));
      }
      for (int k = 0; k < 4; ++k) canvas.Line(xs[k], ys[k], xs[(k + 1) % 4], ys[(k + 1) % 4]);
    }
  }
  return canvas.Render() + "\nGeorg Nees - schotter, plotter on paper, 1968. " + kVersionLine;
}

// One of VERSION 5's optional numbers, clamped to [lo, hi]; false after replying the error.
bool ParseClamped(CommandContext& ctx, size_t i, int lo, int hi, int* out) {
  if (i >= ctx.argc()) return true;  // keeps the default
  int64_t v;
  if (!ParseInt64(ctx.arg(i), &v)) {
    ctx.reply.Error(errors::kNotInteger);
    return false;
  }
  *out = static_cast<int>(std::clamp<int64_t>(v, lo, hi));
  return true;
}

void CmdLolwut(CommandContext& ctx) {
  int64_t version = 0;
  if (ctx.argc() >= 3 && EqualsIgnoreCase(ctx.arg(1), "version") &&
      !ParseInt64(ctx.arg(2), &version)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (version != 5) {
    ctx.reply.Verbatim("txt", kVersionLine);
    return;
  }
  int columns = 66, per_row = 8, per_col = 12;
  if (!ParseClamped(ctx, 3, 1, 1000, &columns) || !ParseClamped(ctx, 4, 1, 200, &per_row) ||
      !ParseClamped(ctx, 5, 1, 200, &per_col)) {
    return;
  }
  ctx.reply.Verbatim("txt", DrawSchotter(columns, per_row, per_col));
}

}  // namespace

void RegisterLolwutCommand(CommandTable& t) {
  t.Add({.name = "lolwut", .arity = -1, .flags = kCmdReadonly | kCmdFast,
         .acl = kAclRead | kAclFast, .handler = CmdLolwut, .group = "server",
         .summary = "Displays computer art and the Redis version", .since = "5.0.0",
         .complexity = "O(N) where N is the size of the drawing"});
}

}  // namespace vireo
