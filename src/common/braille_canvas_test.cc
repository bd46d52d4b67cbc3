#include "common/braille_canvas.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

// The UTF-8 bytes of braille character U+2800 + bits.
std::string Braille(unsigned bits) {
  unsigned code = 0x2800 + bits;
  return {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
          static_cast<char>(0x80 | (code & 0x3F))};
}

TEST(BrailleCanvas, EachPixelLightsItsDot) {
  BrailleCanvas empty(2, 4);
  EXPECT_EQ(empty.Render(), Braille(0) + "\n");
  const unsigned dots[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 2; ++x) {
      BrailleCanvas c(2, 4);
      c.Set(x, y);
      EXPECT_EQ(c.Render(), Braille(dots[y][x]) + "\n") << x << "," << y;
    }
  }
}

TEST(BrailleCanvas, SizeRoundsUpAndOutsidePixelsAreIgnored) {
  BrailleCanvas c(3, 5);  // two characters wide, two lines high
  c.Set(-1, 0);
  c.Set(3, 0);
  c.Set(0, 5);
  c.Set(2, 4);
  EXPECT_FALSE(c.Get(3, 0));
  EXPECT_TRUE(c.Get(2, 4));
  EXPECT_EQ(c.Render(), Braille(0) + Braille(0) + "\n" + Braille(0) + Braille(0x01) + "\n");
  EXPECT_EQ(BrailleCanvas(0, 0).Render(), "");
}

TEST(BrailleCanvas, LinesIncludeBothEnds) {
  BrailleCanvas c(8, 8);
  c.Line(0, 0, 7, 7);  // the diagonal
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(c.Get(i, i)) << i;
  EXPECT_FALSE(c.Get(1, 0));
  BrailleCanvas h(8, 8);
  h.Line(6, 2, 1, 2);  // right to left
  for (int x = 0; x < 8; ++x) EXPECT_EQ(h.Get(x, 2), x >= 1 && x <= 6) << x;
  BrailleCanvas p(4, 4);
  p.Line(2, 3, 2, 3);
  EXPECT_TRUE(p.Get(2, 3));
}

}  // namespace
}  // namespace vireo
