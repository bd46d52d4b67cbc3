// A black-and-white pixel canvas rendered as Unicode braille: each character shows a 2x4 block
// of pixels, so text terminals get four times the resolution of one glyph per pixel. LOLWUT
// draws on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vireo {

class BrailleCanvas {
 public:
  BrailleCanvas(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  // Pixels outside the canvas are ignored.
  void Set(int x, int y);
  bool Get(int x, int y) const;
  // A straight line between two pixels, both ends included.
  void Line(int x0, int y0, int x1, int y1);
  // UTF-8 text: ceil(height/4) lines of ceil(width/2) braille characters, each line ending in
  // '\n'.
  std::string Render() const;

 private:
  int width_, height_;
  std::vector<uint8_t> pixels_;
};

}  // namespace vireo
