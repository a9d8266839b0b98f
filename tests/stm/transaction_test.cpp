// The STM on the cpu executor: heavy conflicts make progress under the
// deterministic schedule with several seeds and under the parallel one;
// committed transactions serialize in sequence order (replaying the log in
// that order gives exactly the visible words); the durable fence returns
// only once the caller's record and every earlier one are durable.
#include <gtest/gtest.h>

#include <numeric>
#include <optional>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/stm/direct_sink.hpp"
#include "gpmx/stm/durability.hpp"
#include "gpmx/stm/log_scan.hpp"
#include "gpmx/stm/log_truncator.hpp"
#include "gpmx/stm/persist_ring.hpp"
#include "gpmx/stm/transaction.hpp"
#include "gpmx/stm/tx_heap.hpp"
#include "gpmx/support/hash_mix.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;

// Transactions use the first contended_words; the last two are a held-back
// committer's own (held_back_sink), so holding it back blocks no one.
constexpr std::uint32_t contended_words = 4, words = contended_words + 2, committers = 64, blocks = 2, per_thread = 6;

struct args {
  stm::tx_shared shared;
  stm::tx_log log;
  bool helpers;
  std::uint32_t ring;
  std::uint32_t* fence_failures;
  std::uint32_t hold_entries;  // > 0: committer 0 is held back (held_back_sink)
};

// A helper's ring sink that holds one committer back at its first commit,
// before its place in the buffer is taken, until the others have reserved
// `entries` more: a warp descheduled there, made certain.
template <class Inner>
struct held_back_sink {
  Inner& inner;
  const stm::persist_ring& ring;
  bool hold;
  std::uint32_t entries;

  template <class Ctx>
  stm::sink_place reserve(Ctx& t, std::uint32_t writes) {
    if (hold) {
      hold = false;
      const std::uint32_t* tail = &ring.control[0];
      const std::uint32_t from = t.atomic_load(tail, memory_order::acquire, scope::block);
      t.spin_wait([&] { return t.atomic_load(tail, memory_order::acquire, scope::block) - from >= entries; });
    }
    return inner.reserve(t, writes);
  }
  template <class Ctx>
  void commit(Ctx& t, const stm::redo_view& r, stm::sink_place place) {
    inner.commit(t, r, place);
  }
};

// Each transaction adds 1 to two different words (a read-modify-write of
// each): the words always add up to twice the commits.
struct increment_kernel {
  template <class Ctx>
  void operator()(Ctx& t, const args& a) const {
    stm::persist_ring ring{};
    if (a.helpers) {
      ring = stm::persist_ring::of(t, a.ring);
      ring.clear(t);
      t.syncthreads();
      if (t.thread_rank() >= committers) return stm::drain_ring(t, a.shared, ring, a.log, {});
    }
    const std::uint32_t id = std::uint32_t(t.block_rank()) * committers + t.thread_rank();
    stm::transaction<Ctx> tx(t, a.shared, id);
    stm::direct_sink direct(a.shared, a.log, id, {});
    stm::ring_sink queued(a.shared, ring, a.log.epoch);
    const bool held_back = id == 0 && a.hold_entries > 0;
    held_back_sink<stm::ring_sink> held{queued, ring, held_back, a.hold_entries};
    for (std::uint32_t k = 0; k < per_thread; ++k) {
      const std::uint64_t h = mix64(id * 131 + k);
      std::uint32_t w0 = std::uint32_t(h % contended_words),
                    w1 = (w0 + 1 + std::uint32_t((h >> 8) % (contended_words - 1))) % contended_words;
      if (held_back && k == 0) {
        w0 = contended_words;
        w1 = contended_words + 1;
      }
      auto body = [&](auto& x) {
        const std::uint32_t a0 = x.read(w0), a1 = x.read(w1);
        if (x.failed()) return;
        x.write(w0, a0 + 1);
        x.write(w1, a1 + 1);
      };
      if (a.helpers) stm::atomically(tx, held, body);
      else stm::atomically(tx, direct, body);
    }
    if (a.helpers) ring.committer_done(t);
    stm::durable_fence(t, a.shared, tx.last_seq());
    const std::uint32_t mine = tx.last_seq() - a.shared.first_seq;
    for (std::uint32_t i = 0; i <= mine; ++i)  // this record and every earlier one
      if (t.atomic_load(&a.shared.durable[i], memory_order::acquire, scope::device) == 0u) {
        t.atomic_add(a.fence_failures, 1u);
        break;
      }
  }
};

struct rig {
  scratch_dir dir;
  pm::pool pool = pm::pool::create(dir.path() / "t.pool", 8 << 20, {.mode = pm::durability::none});
  stm::log_geometry g{blocks, committers * per_thread * 4, blocks * committers, per_thread * 4};
  kernel_vector<std::uint64_t> orecs = kernel_vector<std::uint64_t>(words, 0);
  kernel_vector<std::uint32_t> data = kernel_vector<std::uint32_t>(words, 0),
                               status = kernel_vector<std::uint32_t>(blocks * committers, 0),
                               counter_words = kernel_vector<std::uint32_t>(4, 0),
                               durable = kernel_vector<std::uint32_t>(stm::durable_words(blocks * committers * per_thread), 0);
  kernel_vector<std::uint64_t> counters = kernel_vector<std::uint64_t>(blocks * stm::counters_per_block, 0);

  // rings: every stream a ring truncated while the kernel runs, a
  // committer's of two records, a helper's of the buffer and one drain.
  bool rings = false;
  kernel_vector<std::uint64_t> reclaimed, durable_end;
  std::uint32_t ring = 64;          // the helpers' buffer, in entries
  std::uint32_t hold_entries = 0;   // see held_back_sink
  // After a run with helpers and launch-long streams: the most entries that
  // lie before a record in its helper's stream and belong to records with
  // larger numbers.
  std::uint64_t larger_numbers_ahead = 0;

  explicit rig(bool with_rings = false) : rings(with_rings) {
    if (rings) {
      g = stm::log_geometry{blocks, 64 + 32, blocks * committers, 2 * stm::record_entries(2), true};
      reclaimed.assign(g.streams(), 0);
      durable_end.assign(g.streams(), 0);
    }
    stm::tx_heap::create(pool, words, g);
  }

  void run(cpu::executor& ex, bool helpers) {
    stm::tx_heap heap = stm::tx_heap::open(pool, words, g);
    stm::tx_shared s;
    s.data = data.data();
    s.words = words;
    s.orecs = orecs.data();
    s.status = status.data();
    s.seq = &counter_words[0];
    s.durable = durable.data();
    s.first_seq = 1;
    s.seq_capacity = blocks * committers * per_thread;
    s.persisted_prefix = &counter_words[1];
    s.counters = counters.data();
    stm::tx_log log = heap.log();
    std::optional<stm::log_truncator> truncator;
    std::optional<cpu::agent_attachment> attached;
    if (rings) {
      log.reclaimed = reclaimed.data();
      log.durable_end = durable_end.data();
      truncator.emplace(heap, log);
      (void)attached.emplace(ex.attach(*truncator));
    }
    const args a{s, log, helpers, ring, &counter_words[3], hold_entries};
    ex.launch({dim3(blocks), dim3(committers + (helpers ? 32 : 0)), helpers ? stm::ring_bytes(ring) : 0, "increments"},
              increment_kernel{}, a);
    attached.reset();
    if (rings) {
      EXPECT_GT(truncator->applied(), 0u) << "rings of two records cannot hold six";
    }
    const std::uint64_t commits = std::uint64_t(blocks) * committers * per_thread;
    EXPECT_EQ(std::accumulate(data.begin(), data.end(), std::uint64_t(0)), 2 * commits);
    EXPECT_EQ(counter_words[0], commits) << "sequence numbers taken";
    EXPECT_EQ(counter_words[3], 0u) << "durable fences that returned before the record was durable";
    // Sequence order is a serialization order: the log replayed in it
    // gives the visible words exactly.
    // (With rings the home image holds what the truncator applied, and the
    // log the rest.)
    if (helpers && !rings) larger_numbers_ahead = worst_disorder(log);
    const stm::log_scan scan = heap.scan();
    EXPECT_EQ(heap.applied_upto() + scan.prefix, commits);
    std::vector<std::uint32_t> replay(heap.home().begin(), heap.home().end());
    stm::apply_prefix(scan, replay, heap.applied_upto());
    EXPECT_EQ(replay, std::vector<std::uint32_t>(data.begin(), data.end()));
  }

  std::uint64_t worst_disorder(const stm::tx_log& log) const {
    const std::span<const stm::log_entry> all(log.entries.raw(), g.entries());
    std::uint64_t worst = 0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint32_t i = log.block_stream_index(b);
      stm::log_scan got;
      std::vector<std::uint64_t> ends;
      (void)stm::read_stream(all.subspan(g.stream_start(i), g.stream_entries(i)), i, 0, g.stream_entries(i), false,
                             log.epoch, words, "helper stream", got, &ends);
      for (std::size_t k = 0; k < got.records.size(); ++k) {
        std::uint64_t ahead = 0;
        for (std::size_t j = 0; j < k; ++j)
          if (got.records[j].seq > got.records[k].seq) ahead += ends[j] - (j == 0 ? 0 : ends[j - 1]);
        worst = std::max(worst, ahead);
      }
    }
    return worst;
  }
};

class StmContention : public testing::TestWithParam<bool> {};

TEST_P(StmContention, DeterministicScheduleMakesProgressWithEverySeed) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    rig r;
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    r.run(ex, GetParam());
    if (testing::Test::HasFailure()) return;
  }
}

TEST_P(StmContention, ParallelScheduleMakesProgress) {
  rig r;
  cpu::executor ex({.workers = 2});
  r.run(ex, GetParam());
}

TEST_P(StmContention, ConflictsPreemptAndAbort) {
  rig r;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 7});
  r.run(ex, GetParam());
  std::uint64_t aborts = 0, preemptions = 0;
  for (std::uint32_t b = 0; b < blocks; ++b) {
    aborts += r.counters[b * stm::counters_per_block + stm::count_aborts];
    preemptions += r.counters[b * stm::counters_per_block + stm::count_preemptions];
  }
  EXPECT_GT(aborts, 0u) << "768 transactions over 4 words never conflicted";
  EXPECT_GT(preemptions, 0u);
}

// The same increments with log rings truncated while the kernel runs (the
// truncator on its own thread beside the workers in the parallel schedule).
TEST_P(StmContention, LogRingsTruncatedWhileRunningKeepTheLogAndHomeExact) {
  {
    rig r(/*with_rings=*/true);
    cpu::executor ex({.workers = 2});
    r.run(ex, GetParam());
  }
  for (std::uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(seed);
    rig r(/*with_rings=*/true);
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    r.run(ex, GetParam());
  }
}

// A committer reserves its place in its helper's buffer before it takes its
// sequence number, so no record in a helper's stream follows more than the
// buffer less its own entries of records with larger numbers: what lets a
// log ring of the buffer plus one drain always take the smallest missing
// record (docs/transactions.md, truncation). Committer 0 is held back at
// its first commit until others have reserved a buffer's worth; numbered
// before it reserves, it would follow all of them (a GPU run with rings
// hung that way).
TEST(StmHelperStreams, NoRecordFollowsMoreThanABufferOfLargerNumbers) {
  const std::uint32_t record = stm::record_entries(2);
  auto check = [&](cpu::executor& ex) {
    rig r;
    r.ring = 4 * record;
    r.hold_entries = r.ring;
    r.run(ex, /*helpers=*/true);
    EXPECT_LE(r.larger_numbers_ahead, r.ring - record);
  };
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    check(ex);
  }
  cpu::executor parallel({.workers = 2});
  check(parallel);
}

INSTANTIATE_TEST_SUITE_P(Helpers, StmContention, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) { return i.param ? "HelperWarps" : "Committers"; });

}  // namespace
