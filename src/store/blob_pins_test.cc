#include "store/blob_pins.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "store/value.h"

namespace vireo {
namespace {

// A raw value of n bytes of c, and a pin on its blob as a reply would take.
Entry* PinnedValue(size_t n, char c, StrBlob** pinned) {
  Entry* e = NewEntry("k");
  SetStringValue(e, std::string(n, c));
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  *pinned = e->str;
  PinBlob(e->str);
  return e;
}

TEST(BlobPins, AFreedValueLivesUntilItsLastPinGoes) {
  StrBlob* b;
  Entry* e = PinnedValue(kReplyByReferenceMin, 'x', &b);
  PinBlob(b);  // a second reply (MGET k k)
  EXPECT_EQ(PinnedBlobs(), 1u);
  FreeEntry(e);
  EXPECT_EQ(b->View(), std::string(kReplyByReferenceMin, 'x'));  // ASan: still allocated
  UnpinBlob(b);
  EXPECT_EQ(b->View(), std::string(kReplyByReferenceMin, 'x'));
  UnpinBlob(b);  // the last: freed now (a leak here fails LeakSanitizer)
  EXPECT_EQ(PinnedBlobs(), 0u);
}

TEST(BlobPins, WritesToAPinnedValueGoToACopy) {
  const std::string orig(kReplyByReferenceMin + 10, 'o');
  StrBlob* b;
  Entry* e = PinnedValue(orig.size(), 'o', &b);
  AppendToString(e, "tail");
  EXPECT_NE(e->str, b);
  EXPECT_EQ(b->View(), orig);
  EXPECT_EQ(StringLength(e), orig.size() + 4);

  // Same-size overwrite (SET reuses a fitting allocation), SETRANGE and bit edits likewise.
  StrBlob* b2 = e->str;
  PinBlob(b2);
  SetStringValue(e, std::string(orig.size() + 4, 'n'));
  EXPECT_NE(e->str, b2);
  EXPECT_EQ(b2->View(), orig + "tail");
  StrBlob* b3 = e->str;
  PinBlob(b3);
  SetRangeInString(e, 0, "zz");
  EXPECT_NE(e->str, b3);
  EXPECT_EQ(b3->View(), std::string(orig.size() + 4, 'n'));
  StrBlob* b4 = e->str;
  PinBlob(b4);
  WritableRawBlob(e)->data[0] = 'q';
  EXPECT_EQ(b4->data[0], 'z');
  EXPECT_EQ(e->str->data[0], 'q');

  FreeEntry(e);
  for (StrBlob* p : {b, b2, b3, b4}) UnpinBlob(p);
  EXPECT_EQ(PinnedBlobs(), 0u);
}

TEST(BlobPins, AnUnpinnedValueIsEditedInPlace) {
  StrBlob* b;
  Entry* e = PinnedValue(kReplyByReferenceMin, 'p', &b);
  UnpinBlob(b);
  SetRangeInString(e, 0, "zz");
  EXPECT_EQ(e->str, b);
  FreeEntry(e);
}

TEST(BlobPins, AnotherThreadMayFreeOrUnpin) {
  // Lazy free frees keys on its own thread; replies are sent (and unpinned) by I/O threads.
  StrBlob* b;
  Entry* e = PinnedValue(kReplyByReferenceMin, 't', &b);
  std::thread([e] { FreeEntry(e); }).join();
  EXPECT_EQ(b->data[0], 't');
  std::thread([b] { UnpinBlob(b); }).join();
  EXPECT_EQ(PinnedBlobs(), 0u);
}

TEST(BlobPins, ValuesOnSmallPagesAreReferencedFromALargerSize) {
  EXPECT_EQ(ReplyByReferenceMin(true), kReplyByReferenceMin);
  EXPECT_EQ(ReplyByReferenceMin(false), kReplyByReferenceMinSmallPages);
  EXPECT_GT(kReplyByReferenceMinSmallPages, kReplyByReferenceMin);
}

}  // namespace
}  // namespace vireo
