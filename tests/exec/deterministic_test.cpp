#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"

namespace {
using namespace gpmx;

// Each thread takes a ticket; the order of tickets is the interleaving.
std::vector<std::uint32_t> ticket_order(std::uint64_t seed) {
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
  std::uint32_t counter = 0;
  std::vector<std::uint32_t> order(4 * 64, 0);
  ex.launch({dim3(4), dim3(64), 0, "tickets"}, [](auto& t, std::uint32_t* c, std::uint32_t* o) {
    const std::uint32_t mine = t.atomic_add(c, 1u);
    t.syncthreads();
    const std::uint32_t second = t.atomic_add(c, 1u);
    o[t.global_id()] = mine * 1000 + second;
  }, &counter, order.data());
  return order;
}

TEST(Deterministic, SameSeedSameInterleaving) {
  EXPECT_EQ(ticket_order(1), ticket_order(1));
  EXPECT_EQ(ticket_order(77), ticket_order(77));
}

TEST(Deterministic, DifferentSeedsDifferentInterleavings) {
  const auto a = ticket_order(1), b = ticket_order(2), c = ticket_order(3);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
}

TEST(Deterministic, ThreadsOfABlockStartInASeededOrder) {
  // Without scheduling points, the only freedom is the start order.
  auto first_runner = [](std::uint64_t seed) {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    std::vector<std::uint32_t> order;
    ex.launch({dim3(1), dim3(32)}, [](auto& t, std::vector<std::uint32_t>* o) {
      o->push_back(t.thread_rank());
    }, &order);
    return order;
  };
  EXPECT_EQ(first_runner(5), first_runner(5));
  EXPECT_NE(first_runner(5), first_runner(6));
}

TEST(Deterministic, ResultsStillCorrect) {
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 9});
  std::vector<std::uint64_t> out(8, 0);
  ex.launch({dim3(8), dim3(128)}, [](auto& t, std::uint64_t* o) {
    GPMX_SHARED(t, std::uint64_t, s, 1);
    if (t.thread_rank() == 0) s[0] = 0;
    t.syncthreads();
    t.atomic_add(&s[0], std::uint64_t(t.thread_rank()), memory_order::relaxed, scope::block);
    t.syncthreads();
    if (t.thread_rank() == 0) o[t.block_rank()] = s[0];
  }, out.data());
  for (auto v : out) EXPECT_EQ(v, 127u * 128u / 2u);
}

}  // namespace

namespace {
// Every block runs exactly once and no block outside the grid runs, in both
// schedules, also when blocks spin and more blocks are admitted after the
// block counter ran out.
TEST(Deterministic, EachBlockOfTheGridRunsExactlyOnce) {
  for (const auto policy : {gpmx::cpu::schedule::deterministic, gpmx::cpu::schedule::parallel}) {
    gpmx::cpu::executor ex({.workers = 2, .policy = policy, .seed = 4});
    std::vector<std::uint32_t> runs(64, 0);
    std::uint32_t flag = 0;
    ex.launch({gpmx::dim3(37), gpmx::dim3(8)}, [](auto& t, std::uint32_t* r, std::uint32_t* f) {
      if (t.thread_rank() == 0) t.atomic_add(&r[std::min<std::uint64_t>(t.block_rank(), 63)], 1u);
      if (t.block_rank() == 0 && t.thread_rank() == 0)  // the first block waits for the last
        t.spin_wait([&] { return t.atomic_load(f) != 0u; });
      if (t.block_rank() == 36) t.atomic_store(f, 1u);
    }, runs.data(), &flag);
    for (std::size_t b = 0; b < runs.size(); ++b) EXPECT_EQ(runs[b], b < 37 ? 1u : 0u) << "block " << b;
  }
}
}  // namespace
