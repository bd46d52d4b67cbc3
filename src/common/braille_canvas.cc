#include "common/braille_canvas.h"

#include <cstdlib>

namespace vireo {

BrailleCanvas::BrailleCanvas(int width, int height)
    : width_(width > 0 ? width : 0),
      height_(height > 0 ? height : 0),
      pixels_(static_cast<size_t>(width_) * static_cast<size_t>(height_), 0) {}

void BrailleCanvas::Set(int x, int y) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  pixels_[static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)] = 1;
}

bool BrailleCanvas::Get(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return false;
  return pixels_[static_cast<size_t>(y) * static_cast<size_t>(width_) +
                 static_cast<size_t>(x)] != 0;
}

void BrailleCanvas::Line(int x0, int y0, int x1, int y1) {
  // Bresenham: step along the longer axis, carrying the error of the shorter one.
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    Set(x0, y0);
    if (x0 == x1 && y0 == y1) return;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

std::string BrailleCanvas::Render() const {
  // The dot each pixel of a 2x4 block lights, by (row, column): Unicode's braille numbering,
  // dots 1-3 and 4-6 down the columns, 7 and 8 on the bottom row.
  static constexpr uint8_t kDot[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
  std::string out;
  for (int top = 0; top < height_; top += 4) {
    for (int left = 0; left < width_; left += 2) {
      unsigned bits = 0;
      for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 2; ++c) {
          if (Get(left + c, top + r)) bits |= kDot[r][c];
        }
      }
      const unsigned code = 0x2800 + bits;  // U+2800..U+28FF, three bytes in UTF-8
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace vireo
