#include "store/stream.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace vireo {
namespace {

using Fields = std::vector<std::string>;
using Model = std::map<StreamID, Fields>;

StreamID Add(Stream* s, StreamID id, const Fields& fv, StreamNodeLimits lim = {}) {
  std::vector<std::string_view> views(fv.begin(), fv.end());
  StreamID added;
  EXPECT_EQ(
      StreamAppend(s, {StreamAddId::kExplicit, id}, 0, views.data(), views.size() / 2, lim, &added),
      StreamAddStatus::kOk);
  return added;
}

std::vector<std::pair<StreamID, Fields>> Range(const Stream& s, StreamID a, StreamID b, bool rev) {
  std::vector<std::pair<StreamID, Fields>> out;
  for (StreamIterator it(s, a, b, rev); it.Next();) {
    Fields fv;
    StreamFieldReader r = it.Fields();
    std::string_view f, v;
    while (r.Next(&f, &v)) {
      fv.emplace_back(f);
      fv.emplace_back(v);
    }
    out.emplace_back(it.id(), fv);
  }
  return out;
}

std::vector<std::pair<StreamID, Fields>> ModelRange(const Model& m, StreamID a, StreamID b,
                                                    bool rev) {
  std::vector<std::pair<StreamID, Fields>> out;
  if (a > b) return out;
  for (auto it = m.lower_bound(a); it != m.end() && it->first <= b; ++it) out.push_back(*it);
  if (rev) std::reverse(out.begin(), out.end());
  return out;
}

TEST(StreamNodeIndex, FindPushAndEraseKeepOrder) {
  StreamNodeIndex idx;
  auto* fake = reinterpret_cast<StreamNode*>(0x10);
  for (uint64_t i = 0; i < 50; ++i) idx.PushBack({i * 10, 0}, fake);
  EXPECT_EQ(idx.Find({5, 0}), 0u);
  EXPECT_EQ(idx.Find({10, 0}), 1u);
  EXPECT_EQ(idx.Find({495, 0}), 49u);
  for (int i = 0; i < 30; ++i) idx.Erase(0);  // trimming leaves a gap at the front
  EXPECT_EQ(idx.size(), 20u);
  EXPECT_EQ(idx[0].base, (StreamID{300, 0}));
  EXPECT_EQ(idx.Find({299, 0}), StreamNodeIndex::kNone);
  for (uint64_t i = 50; i < 100; ++i) idx.PushBack({i * 10, 0}, fake);  // reuses the gap
  EXPECT_EQ(idx.size(), 70u);
  idx.Erase(5);
  EXPECT_EQ(idx[5].base, (StreamID{360, 0}));
  EXPECT_EQ(idx.Find({355, 0}), 4u);
  EXPECT_EQ(idx[idx.size() - 1].base, (StreamID{990, 0}));
}

TEST(Stream, AutoIdsAreMonotonicAndExplicitIdsMustGrow) {
  Stream s;
  std::string_view fv[] = {"f", "v"};
  StreamID id;
  ASSERT_EQ(StreamAppend(&s, {}, 1000, fv, 1, {}, &id), StreamAddStatus::kOk);
  EXPECT_EQ(id, (StreamID{1000, 0}));
  ASSERT_EQ(StreamAppend(&s, {}, 999, fv, 1, {}, &id), StreamAddStatus::kOk);  // clock back
  EXPECT_EQ(id, (StreamID{1000, 1}));
  ASSERT_EQ(StreamAppend(&s, {StreamAddId::kAutoSeq, {1000, 0}}, 0, fv, 1, {}, &id),
            StreamAddStatus::kOk);
  EXPECT_EQ(id, (StreamID{1000, 2}));
  ASSERT_EQ(StreamAppend(&s, {StreamAddId::kAutoSeq, {2000, 0}}, 0, fv, 1, {}, &id),
            StreamAddStatus::kOk);
  EXPECT_EQ(id, (StreamID{2000, 0}));
  EXPECT_EQ(StreamAppend(&s, {StreamAddId::kExplicit, {2000, 0}}, 0, fv, 1, {}, &id),
            StreamAddStatus::kIdTooSmall);
  EXPECT_EQ(StreamAppend(&s, {StreamAddId::kAutoSeq, {1999, 0}}, 0, fv, 1, {}, &id),
            StreamAddStatus::kIdTooSmall);
  ASSERT_EQ(StreamAppend(&s, {StreamAddId::kExplicit, {UINT64_MAX, UINT64_MAX}}, 0, fv, 1, {}, &id),
            StreamAddStatus::kOk);
  EXPECT_EQ(StreamAppend(&s, {}, 5, fv, 1, {}, &id), StreamAddStatus::kIdTooSmall);
  EXPECT_EQ(s.length, 5u);
  EXPECT_EQ(s.entries_added, 5u);
  EXPECT_EQ(s.first_id, (StreamID{1000, 0}));
}

TEST(Stream, NodesSplitAtTheEntryLimit) {
  Stream s;
  for (uint64_t i = 1; i <= 250; ++i) Add(&s, {i, 0}, {"a", "1"});
  EXPECT_EQ(s.index.size(), 3u);
  Stream t;
  StreamNodeLimits tiny{4096, 2};
  for (uint64_t i = 1; i <= 5; ++i) Add(&t, {i, 0}, {"a", "1"}, tiny);
  EXPECT_EQ(t.index.size(), 3u);
  Stream u;
  StreamNodeLimits bytes{100, 0};
  for (uint64_t i = 1; i <= 10; ++i) Add(&u, {i, 0}, {"a", std::string(40, 'x')}, bytes);
  EXPECT_GE(u.index.size(), 4u);
}

TEST(Stream, RandomOperationsMatchAMap) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    Stream s;
    Model m;
    StreamNodeLimits lim{rng() % 2 ? 4096u : 200u, 1 + rng() % 12};
    StreamID last{0, 0};
    for (int op = 0; op < 400; ++op) {
      int r = static_cast<int>(rng() % 10);
      if (r < 6) {
        StreamID id = last;
        if (rng() % 3 == 0) {
          id.ms += 1 + rng() % 200;
          id.seq = rng() % 3;
        } else {
          id.seq += 1 + rng() % 2;
        }
        Fields fv;
        size_t pairs = rng() % 4;
        for (size_t p = 0; p < pairs; ++p) {
          fv.push_back(std::string(1, static_cast<char>('a' + rng() % 4)));
          fv.push_back(std::to_string(static_cast<int64_t>(rng() % 2000) - 1000) +
                       (rng() % 2 ? ".5" : ""));
        }
        Add(&s, id, fv, lim);
        m[id] = fv;
        last = id;
      } else if (r < 8 && !m.empty()) {
        auto it = m.begin();
        std::advance(it, static_cast<long>(rng() % m.size()));
        EXPECT_TRUE(StreamDeleteEntry(&s, it->first));
        EXPECT_FALSE(StreamDeleteEntry(&s, it->first));
        // The caller keeps first_id, as XDEL does.
        if (it->first == s.first_id && !StreamFirstEntryId(s, &s.first_id)) s.first_id = {};
        m.erase(it);
      } else if (r == 8) {
        StreamTrimArgs a;
        a.strategy = StreamTrimArgs::kMaxLen;
        a.approx = rng() % 2;
        a.maxlen = rng() % 60;
        int64_t n = StreamTrim(&s, a);
        if (!a.approx) {
          ASSERT_LE(s.length, a.maxlen);
        }
        for (int64_t i = 0; i < n; ++i) m.erase(m.begin());
      } else if (!m.empty()) {
        StreamTrimArgs a;
        a.strategy = StreamTrimArgs::kMinId;
        auto it = m.begin();
        std::advance(it, static_cast<long>(rng() % m.size()));
        a.minid = it->first;
        int64_t n = StreamTrim(&s, a);
        while (!m.empty() && m.begin()->first < a.minid) {
          m.erase(m.begin());
          --n;
        }
        EXPECT_EQ(n, 0);
      }
      ASSERT_EQ(s.length, m.size());
    }
    EXPECT_EQ(Range(s, kMinStreamId, kMaxStreamId, false),
              ModelRange(m, kMinStreamId, kMaxStreamId, false));
    EXPECT_EQ(Range(s, kMinStreamId, kMaxStreamId, true),
              ModelRange(m, kMinStreamId, kMaxStreamId, true));
    for (int q = 0; q < 30; ++q) {
      StreamID a{rng() % (last.ms + 2), rng() % 4};
      StreamID b{rng() % (last.ms + 2), rng() % 4};
      bool rev = rng() % 2;
      EXPECT_EQ(Range(s, a, b, rev), ModelRange(m, a, b, rev));
    }
    StreamID first;
    if (m.empty()) {
      EXPECT_FALSE(StreamFirstEntryId(s, &first));
    } else {
      ASSERT_TRUE(StreamFirstEntryId(s, &first));
      EXPECT_EQ(first, m.begin()->first);
      EXPECT_EQ(s.first_id, m.begin()->first);
      StreamID lastid;
      ASSERT_TRUE(StreamLastEntryId(s, &lastid));
      EXPECT_EQ(lastid, m.rbegin()->first);
    }
    std::unique_ptr<Stream> copy(StreamCopy(s));
    EXPECT_EQ(Range(*copy, kMinStreamId, kMaxStreamId, false),
              ModelRange(m, kMinStreamId, kMaxStreamId, false));
    EXPECT_GT(StreamMemory(s), 0u);
  }
}

TEST(Stream, ApproximateTrimOnlyDropsWholeNodesAndHonoursLimit) {
  Stream s;
  for (uint64_t i = 1; i <= 1000; ++i) Add(&s, {i, 0}, {"a", "1"});
  StreamTrimArgs a;
  a.strategy = StreamTrimArgs::kMaxLen;
  a.approx = true;
  a.maxlen = 850;
  EXPECT_EQ(StreamTrim(&s, a), 100);  // one whole node; a second would go below 850
  EXPECT_EQ(s.length, 900u);
  a.maxlen = 0;
  a.limit = 250;
  EXPECT_EQ(StreamTrim(&s, a), 200);  // whole nodes only, at most 250 entries
  EXPECT_EQ(s.first_id, (StreamID{301, 0}));
  a.approx = false;
  a.limit = 0;
  a.maxlen = 10;
  EXPECT_EQ(StreamTrim(&s, a), 690);
  EXPECT_EQ(s.first_id, (StreamID{991, 0}));
  EXPECT_EQ(s.length, 10u);
}

TEST(StreamGroup, LagFollowsValkeyRules) {
  Stream s;
  for (uint64_t i = 1; i <= 5; ++i) Add(&s, {i, 0}, {"data", "x"});
  StreamGroup* g = s.CreateGroup("g", {0, 0}, kStreamInvalidEntriesRead);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(s.CreateGroup("g", {0, 0}, 0), nullptr);
  int64_t lag;
  ASSERT_TRUE(StreamGroupLag(s, *g, &lag));
  EXPECT_EQ(lag, 5);
  StreamGroupDelivered(s, g, {1, 0});
  EXPECT_EQ(g->entries_read, 1);
  for (uint64_t i = 2; i <= 5; ++i) StreamGroupDelivered(s, g, {i, 0});
  EXPECT_EQ(g->entries_read, 5);
  ASSERT_TRUE(StreamGroupLag(s, *g, &lag));
  EXPECT_EQ(lag, 0);
  for (uint64_t i = 6; i <= 10; ++i) Add(&s, {i, 0}, {"data", "x"});
  for (uint64_t i = 6; i <= 8; ++i) StreamGroupDelivered(s, g, {i, 0});
  ASSERT_TRUE(StreamDeleteEntry(&s, {9, 0}));
  s.max_deleted_id = {9, 0};
  EXPECT_FALSE(StreamGroupLag(s, *g, &lag));  // a tombstone ahead of the group
  StreamGroupDelivered(s, g, {10, 0});
  EXPECT_EQ(g->entries_read, 10);
  ASSERT_TRUE(StreamGroupLag(s, *g, &lag));
  EXPECT_EQ(lag, 0);
}

TEST(StreamGroup, ConsumersOwnPendingEntries) {
  Stream s;
  StreamGroup* g = s.CreateGroup("g", {0, 0}, 0);
  StreamConsumer* a = g->CreateConsumer("alice", 100);
  StreamConsumer* b = g->CreateConsumer("bob", 100);
  EXPECT_EQ(g->CreateConsumer("alice", 5), nullptr);
  for (uint64_t i = 1; i <= 3; ++i) {
    auto it = g->pel.emplace(StreamID{i, 0}, StreamNack{100, 1, nullptr}).first;
    g->Assign(it, a);
  }
  g->Assign(g->pel.find({2, 0}), b);
  EXPECT_EQ(a->pel.size(), 2u);
  EXPECT_EQ(b->pel.size(), 1u);
  EXPECT_TRUE(g->Ack({1, 0}));
  EXPECT_FALSE(g->Ack({1, 0}));
  std::unique_ptr<StreamGroup> copy = StreamGroupCopy(*g);
  EXPECT_EQ(copy->FindConsumer("bob")->pel.size(), 1u);
  EXPECT_EQ(copy->pel.at({2, 0}).consumer, copy->FindConsumer("bob"));
  EXPECT_EQ(g->DeleteConsumer(a), 1u);
  EXPECT_EQ(g->pel.size(), 1u);
  EXPECT_EQ(g->FindConsumer("alice"), nullptr);
  EXPECT_TRUE(s.DestroyGroup("g"));
  EXPECT_FALSE(s.DestroyGroup("g"));
}

}  // namespace
}  // namespace vireo
