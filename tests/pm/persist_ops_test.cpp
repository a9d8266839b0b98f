// The cpu executor's persistency operations flush exactly the cache lines a
// thread stored through PM views, and order flushes as the models require.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using pm::pm_span;

// A persist domain over ordinary memory that logs every flush it is asked for.
class logging_domain final : public persist_domain {
 public:
  struct flush {
    std::uintptr_t begin, end;
  };
  void persist_range(const void* p, std::size_t bytes) const override {
    std::lock_guard lock(mutex_);
    const auto b = reinterpret_cast<std::uintptr_t>(p);
    log_.push_back({b, b + bytes});
  }
  std::vector<flush> log() const {
    std::lock_guard lock(mutex_);
    return log_;
  }
  // Index of the first flush covering address a, or -1.
  long first_covering(const void* a) const {
    const auto x = reinterpret_cast<std::uintptr_t>(a);
    const auto l = log();
    for (std::size_t i = 0; i < l.size(); ++i)
      if (l[i].begin <= x && x < l[i].end) return long(i);
    return -1;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::vector<flush> log_;
};

struct alignas(64) lines {
  std::uint64_t word[8 * 64];  // 64 cache lines
};

TEST(PersistOps, GpmPersistFlushesExactlyTheLinesWritten) {
  cpu::executor ex({.workers = 1});
  logging_domain d;
  lines buf{};
  pm_span<std::uint64_t> s(buf.word, 8 * 64, &d);
  std::vector<std::size_t> pending(1, 0);
  ex.launch({dim3(1), dim3(1)}, [](auto& t, pm_span<std::uint64_t> v, std::size_t* before) {
    auto p = v.bind(t);
    p[0] = 1;    // line 0
    p[1] = 2;    // line 0 again
    p[9] = 3;    // line 1
    p[40] = 4;   // line 5
    p[41] = 5;   // line 5
    p[48] = 6;   // line 6
    *before = t.pending_pm_lines().size();
    t.gpm_persist();
  }, s, pending.data());
  EXPECT_EQ(pending[0], 4u);  // lines 0, 1, 5, 6 (consecutive repeats recorded once)
  const auto log = d.log();
  ASSERT_EQ(log.size(), 2u);  // lines 0-1 and 5-6, each coalesced into one flush
  const auto base = reinterpret_cast<std::uintptr_t>(buf.word);
  EXPECT_EQ(log[0].begin, base);
  EXPECT_EQ(log[0].end, base + 128);
  EXPECT_EQ(log[1].begin, base + 5 * 64);
  EXPECT_EQ(log[1].end, base + 7 * 64);
  EXPECT_EQ(buf.word[40], 4u);
}

TEST(PersistOps, UnpersistedStoresAreFlushedWhenTheThreadEnds) {
  cpu::executor ex({.workers = 2});
  logging_domain d;
  lines buf{};
  pm_span<std::uint64_t> s(buf.word, 8 * 64, &d);
  ex.launch({dim3(4), dim3(16)}, [](auto& t, pm_span<std::uint64_t> v) {
    v.bind(t)[t.global_id() * 8] = t.global_id() + 1;  // one line per thread
  }, s);
  std::set<std::uintptr_t> flushed;
  for (const auto& f : d.log())
    for (auto a = f.begin; a < f.end; a += 64) flushed.insert(a);
  EXPECT_EQ(flushed.size(), 64u);
}

TEST(PersistOps, RawStoresAreNotTracked) {
  cpu::executor ex({.workers = 1});
  logging_domain d;
  lines buf{};
  pm_span<std::uint64_t> s(buf.word, 8 * 64, &d);
  ex.launch({dim3(1), dim3(1)}, [](auto& t, pm_span<std::uint64_t> v) {
    v.raw()[3] = 7;
    t.dfence();
  }, s);
  EXPECT_TRUE(d.log().empty());
  EXPECT_EQ(buf.word[3], 7u);
}

TEST(PersistOps, ReleaserPersistsBeforeAcquirerAcrossBlocks) {
  // Block 1 waits (pacq) for block 0's prel, then writes its own line: the
  // releaser's line must be flushed before the acquirer's.
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    logging_domain d;
    lines buf{};
    std::uint32_t flag = 0;
    pm_span<std::uint64_t> s(buf.word, 8 * 64, &d);
    ex.launch({dim3(2), dim3(1)}, [](auto& t, pm_span<std::uint64_t> v, std::uint32_t* f) {
      auto p = v.bind(t);
      if (t.block_rank() == 0) {
        p[0] = 11;
        t.prel(scope::device, f, 1u);
      } else {
        t.spin_wait([&] { return t.pacq(scope::device, f) == 1u; });
        p[8] = 22;
        t.ofence();
      }
    }, s, &flag);
    const long producer = d.first_covering(&buf.word[0]);
    const long consumer = d.first_covering(&buf.word[8]);
    ASSERT_GE(producer, 0);
    ASSERT_GE(consumer, 0);
    EXPECT_LT(producer, consumer) << "seed " << seed;
  }
}

TEST(PersistOps, KernelStoresReachThePoolFile) {
  scratch_dir dir;
  const auto path = dir / "k.pool";
  {
    pm::pool p = pm::pool::create(path, 1 << 20, {.mode = pm::durability::msync});
    pm::region r = p.create_region("values", 4096 * 8);
    cpu::executor ex({.workers = 2});
    ex.launch({dim3(16), dim3(256)}, [](auto& t, pm_span<std::uint64_t> v) {
      v.bind(t)[t.global_id()] = t.global_id() * 3 + 1;
      t.gpm_persist();
    }, r.span<std::uint64_t>());
  }
  pm::pool p = pm::pool::open(path);
  const auto v = p.find("values").as<std::uint64_t>();
  for (std::uint64_t i = 0; i < 4096; ++i) ASSERT_EQ(v[i], i * 3 + 1) << i;
}

}  // namespace
