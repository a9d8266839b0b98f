// The durable fence over more records than one chunk of counts: records
// become durable in a scrambled order, every thread fences on its own
// record, and no fence returns before every earlier record is durable;
// the chunk counts equal the flags they summarize, a mark noted twice
// counts once, and the persisted prefix never passes a record not durable.
#include <gtest/gtest.h>

#include <cstdint>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/stm/durability.hpp"

namespace {
using namespace gpmx;

// 2.5 chunks: whole chunks skipped, a partial last one, a partial scan.
constexpr std::uint32_t records = 2 * stm::durable_chunk + stm::durable_chunk / 2;
// Blocks of 1024: the whole grid is resident at once, as the STM's is
// (records come only from running transactions; a fence waiting for a
// block that has not started would wait for ever).
constexpr std::uint32_t block = 1024;
constexpr std::uint32_t first_seq = 1001;  // as after earlier launches

struct fence_args {
  stm::tx_shared shared;
  std::uint32_t* failures;
};

// Thread i makes record order(i) durable (a permutation: 1031 is prime and
// does not divide records), noting it twice, then fences on it.
struct fence_kernel {
  template <class Ctx>
  void operator()(Ctx& t, const fence_args& a) const {
    const std::uint32_t i = std::uint32_t(t.global_id());
    if (i >= records) return;
    const std::uint32_t mine = std::uint32_t((std::uint64_t(i) * 1031) % records);
    stm::note_durable(t, a.shared, a.shared.first_seq + mine);
    stm::note_durable(t, a.shared, a.shared.first_seq + mine);
    stm::durable_fence(t, a.shared, a.shared.first_seq + mine);
    // This record, the one before it and every 37th below (all of them would
    // be a scheduling point each under the deterministic schedule: minutes
    // under ThreadSanitizer).
    const auto durable = [&](std::uint32_t k) {
      return t.atomic_load(&a.shared.durable[k], memory_order::acquire, scope::device) != 0u;
    };
    bool ok = mine == 0 || durable(mine - 1);
    for (std::uint32_t k = mine; ok; k -= 37) {
      ok = durable(k);
      if (k < 37) break;
    }
    if (!ok) t.atomic_add(a.failures, 1u);
  }
};

// One thread: every record durable but `missing`, then a fence on the
// record before it, then `missing` too and a fence on the last record.
struct gap_kernel {
  template <class Ctx>
  void operator()(Ctx& t, const stm::tx_shared& s, std::uint32_t missing, std::uint32_t* prefix_seen) const {
    for (std::uint32_t k = 0; k < records; ++k)
      if (k != missing) stm::note_durable(t, s, s.first_seq + k);
    stm::durable_fence(t, s, s.first_seq + missing - 1);
    prefix_seen[0] = t.atomic_load(s.persisted_prefix, memory_order::acquire, scope::device);
    stm::note_durable(t, s, s.first_seq + missing);
    stm::durable_fence(t, s, s.first_seq + records - 1);
    prefix_seen[1] = t.atomic_load(s.persisted_prefix, memory_order::acquire, scope::device);
  }
};

void run_fences(cpu::executor& ex) {
  kernel_vector<std::uint32_t> durable(stm::durable_words(records), 0), words(2, 0);
  stm::tx_shared s;
  s.durable = durable.data();
  s.first_seq = first_seq;
  s.seq_capacity = records;
  words[0] = first_seq - 1;  // the prefix: everything before this launch
  s.persisted_prefix = &words[0];
  ex.launch({dim3((records + block - 1) / block), dim3(block), 0, "fences"}, fence_kernel{},
            fence_args{s, &words[1]});
  EXPECT_EQ(words[1], 0u) << "fences that returned before an earlier record was durable";
  for (std::uint32_t c = 0; c * stm::durable_chunk < records; ++c) {
    const std::uint32_t in_chunk = std::min(stm::durable_chunk, records - c * stm::durable_chunk);
    EXPECT_EQ(durable[records + c], in_chunk) << "chunk " << c << " counts each record once";
  }
  EXPECT_LE(words[0], first_seq + records - 1) << "the prefix passed the launch's last record";
  EXPECT_GE(words[0], first_seq + records - 1) << "the last record's fence saw every record durable";
}

TEST(DurableFence, NoFenceReturnsBeforeEveryEarlierRecordIsDurableParallel) {
  cpu::executor ex({.workers = 2});
  run_fences(ex);
}

// Three schedules; one under ThreadSanitizer, where each takes half a minute.
#if defined(GPMX_SANITIZER_thread)
constexpr std::uint64_t schedules[] = {1};
#else
constexpr std::uint64_t schedules[] = {1, 2, 3};
#endif

TEST(DurableFence, NoFenceReturnsBeforeEveryEarlierRecordIsDurableDeterministic) {
  for (std::uint64_t seed : schedules) {
    SCOPED_TRACE(seed);
    cpu::executor ex({.workers = 2, .policy = cpu::schedule::deterministic, .seed = seed});
    run_fences(ex);
  }
}

}  // namespace

namespace {

TEST(DurableFence, PrefixStopsAtTheFirstRecordNotDurableEvenWhenItsChunkIsOneShort) {
  for (const std::uint32_t missing : {1u, stm::durable_chunk + 476, records - 1}) {
    SCOPED_TRACE(missing);
    kernel_vector<std::uint32_t> durable(stm::durable_words(records), 0), words(3, 0);
    stm::tx_shared s;
    s.durable = durable.data();
    s.first_seq = first_seq;
    s.seq_capacity = records;
    words[0] = first_seq - 1;
    s.persisted_prefix = &words[0];
    cpu::executor ex({.workers = 1});
    ex.launch({dim3(1), dim3(1), 0, "gap"}, gap_kernel{}, s, missing, &words[1]);
    EXPECT_EQ(words[1], first_seq + missing - 1) << "the prefix stops right before the record not durable";
    EXPECT_EQ(words[2], first_seq + records - 1) << "and covers the launch once it is";
  }
}

}  // namespace
