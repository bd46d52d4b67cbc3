#include "persistence/cow_snapshot.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "persistence/rdb_reader.h"
#include "server/config.h"
#include "store/lazy_free.h"
#include "store/value.h"

namespace vireo {
namespace {

std::string Str(const Entry* e) {
  char buf[32];
  return std::string(StringValue(e, buf));
}

// Records what a snapshot hands over: (origin db, key) -> value, and how often.
class RecordingObserver : public SnapshotObserver {
 public:
  void SaveEntry(int origin_db, const Entry* e) override {
    auto key = std::make_pair(origin_db, std::string(e->Key()));
    ++count[key];
    value[key] = Str(e);
  }
  void AdoptTable(int origin_db, HashTable<Entry>* table) override {
    table->Clear([&](Entry* e) {
      if (Db::SnapshotPending(e)) SaveEntry(origin_db, e);
      FreeEntry(e);
    });
    delete table;
  }
  std::map<std::pair<int, std::string>, int> count;
  std::map<std::pair<int, std::string>, std::string> value;
};

using Content = std::map<std::pair<int, std::string>, std::string>;

Content Snapshot(const std::vector<Db*>& dbs) {
  Content c;
  for (Db* db : dbs) {
    db->ForEach([&](Entry* e) { c[{db->index(), std::string(e->Key())}] = Str(e); });
  }
  return c;
}

void ExpectExactlyOnce(const RecordingObserver& obs, const Content& expected) {
  EXPECT_EQ(obs.value.size(), expected.size());
  for (const auto& [key, v] : expected) {
    auto it = obs.count.find(key);
    ASSERT_NE(it, obs.count.end()) << "never saved: db " << key.first << " " << key.second;
    EXPECT_EQ(it->second, 1) << key.second;
    EXPECT_EQ(obs.value.at(key), v) << key.second;
  }
  for (const auto& [key, n] : obs.count) {
    EXPECT_TRUE(expected.count(key)) << "saved but created later: " << key.second;
  }
}

bool WalkStep(const std::vector<Db*>& dbs, size_t buckets) {
  bool done = true;
  for (Db* db : dbs) {
    if (!db->SnapshotWalkDone()) {
      db->SnapshotStep(buckets);
      done = false;
      break;
    }
  }
  return !done;
}

// Every key present at the start is handed over exactly once with its value at the start,
// while keys are overwritten, deleted, expired, renamed, moved and added between steps, and
// the table grows (incremental rehash) and shrinks under the walk.
TEST(CowSnapshot, ExactlyOnceUnderChangesAndRehash) {
  RefreshCommandTime();
  KeyspaceStats stats;
  Db db0(0, &stats), db1(1, &stats);
  std::vector<Db*> dbs = {&db0, &db1};
  for (int i = 0; i < 3000; ++i) SetStringValue(db0.Add("k" + std::to_string(i)), "v" + std::to_string(i));
  for (int i = 0; i < 500; ++i) SetStringValue(db1.Add("j" + std::to_string(i)), "w");
  Content expected = Snapshot(dbs);
  RecordingObserver obs;
  Db::BeginSnapshot(&obs);
  for (Db* db : dbs) db->StartSnapshotWalk();
  std::mt19937 rng(7);
  int added = 0;
  while (WalkStep(dbs, 2)) {
    for (int op = 0; op < 6; ++op) {
      std::string k = "k" + std::to_string(rng() % 3000);
      switch (rng() % 7) {
        case 0: {  // overwrite
          Entry* e = db0.Find(k);
          if (e != nullptr) SetStringValue(e, "changed");
          break;
        }
        case 1:
          db0.Delete(k);
          break;
        case 2: {  // grow: new keys make the table rehash under the walk
          for (int n = 0; n < 20; ++n) SetStringValue(db0.Add("new" + std::to_string(added++)), "x");
          break;
        }
        case 3: {  // rename within the db
          Entry* e = db0.Detach(k);
          if (e != nullptr && db0.Find("r" + k) == nullptr) {
            db0.Attach(RekeyEntry(e, "r" + k));
          } else if (e != nullptr) {
            FreeEntry(e);
          }
          break;
        }
        case 4: {  // move to the other db
          Entry* e = db0.Detach(k);
          if (e != nullptr && db1.Find(k) == nullptr) {
            db1.Attach(e);
          } else if (e != nullptr) {
            FreeEntry(e);
          }
          break;
        }
        case 5: {
          Entry* e = db0.Find(k);
          if (e != nullptr) (void)db0.SetExpire(e, NowMs() + 100000);
          break;
        }
        case 6:
          db0.Housekeeping(MonotonicUs());  // shrink and one batch of rehash steps
          break;
      }
    }
  }
  Db::EndSnapshot();
  ExpectExactlyOnce(obs, expected);
  EXPECT_GT(added, 0);
}

// Deleting most keys mid-walk shrinks the table (reverse-binary cursor across a shrink).
TEST(CowSnapshot, ExactlyOnceAcrossShrink) {
  KeyspaceStats stats;
  Db db(0, &stats);
  std::vector<Db*> dbs = {&db};
  for (int i = 0; i < 4096; ++i) SetStringValue(db.Add("k" + std::to_string(i)), "v");
  Content expected = Snapshot(dbs);
  RecordingObserver obs;
  Db::BeginSnapshot(&obs);
  db.StartSnapshotWalk();
  for (int step = 0; WalkStep(dbs, 1); ++step) {
    if (step == 100) {
      for (int i = 0; i < 4000; ++i) db.Delete("k" + std::to_string(i));
    }
    db.Housekeeping(MonotonicUs());  // a deadline already passed: one batch of moves
  }
  Db::EndSnapshot();
  ExpectExactlyOnce(obs, expected);
}

// FLUSHDB mid-walk hands the table over; SWAPDB carries each table's walk and origin along.
TEST(CowSnapshot, FlushAndSwapMidWalk) {
  KeyspaceStats stats;
  Db db0(0, &stats), db1(1, &stats), db2(2, &stats);
  std::vector<Db*> dbs = {&db0, &db1, &db2};
  for (int i = 0; i < 300; ++i) {
    SetStringValue(db0.Add("a" + std::to_string(i)), "0");
    SetStringValue(db1.Add("b" + std::to_string(i)), "1");
    SetStringValue(db2.Add("c" + std::to_string(i)), "2");
  }
  Content expected = Snapshot(dbs);
  RecordingObserver obs;
  Db::BeginSnapshot(&obs);
  for (Db* db : dbs) db->StartSnapshotWalk();
  for (int i = 0; i < 20; ++i) WalkStep(dbs, 1);
  db0.Swap(db2);  // db0 half walked: its table (origin 0) goes to db2
  SetStringValue(db0.Add("new-in-0"), "x");
  db1.Clear(false);  // unwalked: the observer takes it
  SetStringValue(db1.Add("b1"), "after flush");
  Entry* e = db2.Find("a5");  // origin 0 even though it now sits in db 2
  ASSERT_NE(e, nullptr);
  SetStringValue(e, "changed");
  while (WalkStep(dbs, 3)) {
  }
  // A walk of an earlier index may have been swapped in after that index was passed.
  for (Db* db : dbs) EXPECT_TRUE(db->SnapshotWalkDone());
  Db::EndSnapshot();
  ExpectExactlyOnce(obs, expected);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Content LoadFile(const std::string& path, int ndbs) {
  std::string data = ReadFile(path);
  KeyspaceStats stats;
  std::vector<std::unique_ptr<Db>> owned;
  std::vector<Db*> dbs;
  for (int i = 0; i < ndbs; ++i) {
    owned.push_back(std::make_unique<Db>(i, &stats));
    dbs.push_back(owned.back().get());
  }
  RdbLoadStats ls;
  std::string err;
  EXPECT_TRUE(LoadRdb(reinterpret_cast<const unsigned char*>(data.data()), data.size(), dbs,
                      RdbLoadLimitsFrom(Config{}), NowMs(), &ls, &err))
      << err;
  return Snapshot(dbs);
}

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/cow_snapshot_testXXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    unlink((path + "/dump.rdb").c_str());
    unlink((path + "/temp.rdb").c_str());
    rmdir(path.c_str());
  }
  std::string path;
};

CowSnapshotOptions Options(const TempDir& dir) {
  CowSnapshotOptions opt;
  opt.temp_path = dir.path + "/temp.rdb";
  opt.path = dir.path + "/dump.rdb";
  opt.aux.version = "7.0.0";
  return opt;
}

// The whole path: a file written in slices while keys change, then loaded back, holds the
// dataset of the start; an abandoned snapshot leaves nothing and the next one is complete.
TEST(CowSnapshot, FileHoldsTheStartingDataset) {
  RefreshCommandTime();
  TempDir dir;
  KeyspaceStats stats;
  Db db0(0, &stats), db1(1, &stats);
  std::vector<Db*> dbs = {&db0, &db1};
  for (int i = 0; i < 2000; ++i) {
    SetStringValue(db0.Add("k" + std::to_string(i)), std::string(50, 'a' + i % 26));
  }
  SetStringValue(db1.Add("other"), "db1");
  SetStringValue(db0.Add("gone"), "x");
  (void)db0.SetExpire(db0.Find("gone"), NowMs() - 10000);  // expired at the start: not written
  Content expected = Snapshot(dbs);

  std::string err;
  auto first = CowSnapshot::Start(dbs, Options(dir), &err);
  ASSERT_NE(first, nullptr) << err;
  EXPECT_TRUE(CowSnapshot::Busy());
  EXPECT_EQ(CowSnapshot::Start(dbs, Options(dir), &err), nullptr);
  first->Step(0);
  first->Abort();
  EXPECT_EQ(first->Poll(), CowSnapshot::Status::kAborted);
  EXPECT_FALSE(CowSnapshot::Busy());
  EXPECT_NE(access((dir.path + "/temp.rdb").c_str(), F_OK), 0);

  auto s = CowSnapshot::Start(dbs, Options(dir), &err);
  ASSERT_NE(s, nullptr) << err;
  for (int i = 0; s->walking(); ++i) {
    s->Step(0);
    if (i % 3 == 0) {
      if (Entry* e = db0.Find("k" + std::to_string(i % 2000))) SetStringValue(e, "new");
    }
    if (i % 5 == 0) db0.Delete("k" + std::to_string((i * 7) % 2000));
    if (i % 2 == 0) SetStringValue(db0.Add("added" + std::to_string(i)), "a");
    if (i == 10) db1.Clear(false);
  }
  EXPECT_EQ(s->Wait(), CowSnapshot::Status::kSucceeded) << s->error();
  EXPECT_EQ(s->keys_total(), 2002u);
  EXPECT_EQ(s->keys_processed(), 2002u);
  EXPECT_EQ(LoadFile(dir.path + "/dump.rdb", 2), expected);
  LazyFreeDrain();
}

// Diskless full sync: two sockets get preamble, the RDB and the mark; a socket whose reader
// went away is dropped while the other still gets everything.
TEST(CowSnapshot, SocketsGetTheFramedSnapshot) {
  RefreshCommandTime();
  KeyspaceStats stats;
  Db db(0, &stats);
  std::vector<Db*> dbs = {&db};
  for (int i = 0; i < 3000; ++i) SetStringValue(db.Add("k" + std::to_string(i)), std::string(100, 'v'));
  Content expected = Snapshot(dbs);
  int good[2], gone[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, good), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, gone), 0);
  close(gone[1]);  // its replica is gone before the first byte
  CowSnapshotOptions opt;
  opt.sockets = {good[0], gone[0]};
  opt.preamble = "+FULLRESYNC id 0\r\n$EOF:" + std::string(40, 'm') + "\r\n";
  opt.eof_mark = std::string(40, 'm');
  opt.aux.version = "7.0.0";
  std::string received;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = read(good[1], buf, sizeof(buf))) > 0) received.append(buf, static_cast<size_t>(n));
  });
  std::string err;
  auto s = CowSnapshot::Start(dbs, opt, &err);
  ASSERT_NE(s, nullptr) << err;
  EXPECT_EQ(s->Wait(), CowSnapshot::Status::kSucceeded) << s->error();
  EXPECT_TRUE(s->delivered(0));
  EXPECT_FALSE(s->delivered(1));
  ASSERT_EQ(s->socket_count(), 2u);
  s.reset();  // closes the sockets: the reader sees the end
  reader.join();
  close(good[1]);
  ASSERT_GT(received.size(), opt.preamble.size() + 40);
  EXPECT_EQ(received.substr(0, opt.preamble.size()), opt.preamble);
  EXPECT_EQ(received.substr(received.size() - 40), opt.eof_mark);
  std::string rdb = received.substr(opt.preamble.size(), received.size() - opt.preamble.size() - 40);
  KeyspaceStats ls_stats;
  Db loaded(0, &ls_stats);
  std::vector<Db*> into = {&loaded};
  RdbLoadStats ls;
  EXPECT_TRUE(LoadRdb(reinterpret_cast<const unsigned char*>(rdb.data()), rdb.size(), into,
                      RdbLoadLimitsFrom(Config{}), NowMs(), &ls, &err))
      << err;
  EXPECT_EQ(Snapshot(into), expected);
  LazyFreeDrain();
}

// rdb-key-save-delay: the walk saves one key per delay, so a save outlasts its slices.
TEST(CowSnapshot, KeySaveDelayPacesTheWalk) {
  TempDir dir;
  KeyspaceStats stats;
  Db db(0, &stats);
  std::vector<Db*> dbs = {&db};
  for (int i = 0; i < 50; ++i) SetStringValue(db.Add("k" + std::to_string(i)), "v");
  CowSnapshotOptions opt = Options(dir);
  opt.key_save_delay_us = 1000000;
  std::string err;
  auto s = CowSnapshot::Start(dbs, opt, &err);
  ASSERT_NE(s, nullptr) << err;
  s->Step(1000);
  EXPECT_TRUE(s->walking());
  // One bucket per allowed key: its chain (random hashing) may hold several keys, never all.
  EXPECT_LT(s->keys_processed(), 50u);
  EXPECT_GE(CowSnapshot::WaitMs(), 1);
  EXPECT_EQ(s->Wait(), CowSnapshot::Status::kSucceeded);
  EXPECT_EQ(LoadFile(dir.path + "/dump.rdb", 1).size(), 50u);
}

}  // namespace
}  // namespace vireo
