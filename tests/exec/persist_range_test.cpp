// thread_ctx::persist_range: a thread makes durable a range other threads
// stored, found by address among the registered persist domains.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace {
using namespace gpmx;

// Memory whose persists are remembered instead of flushed.
struct remembering_domain final : persist_domain {
  void persist_range(const void* p, std::size_t bytes) const override {
    std::lock_guard lock(m);
    ranges.emplace_back(p, bytes);
  }
  mutable std::mutex m;
  mutable std::vector<std::pair<const void*, std::size_t>> ranges;
};

// Every thread stores its slot without persisting; after the barrier thread
// 0 persists the whole block's slots at once (as a drainer does).
struct store_then_drain {
  void operator()(auto& t, std::uint64_t* slots) const {
    slots[t.global_id()] = t.global_id() + 1;
    t.syncthreads();
    if (t.thread_rank() == 0)
      t.persist_range(slots + t.block_rank() * t.block_dim().x, t.block_dim().x * sizeof(std::uint64_t));
  }
};

TEST(PersistRange, FlushesTheRangeThroughItsDomain) {
  std::vector<std::uint64_t> slots(4 * 32, 0);
  remembering_domain d;
  scoped_persist_domain registered(&d, slots.data(), slots.size() * sizeof(std::uint64_t));
  for (auto policy : {cpu::schedule::parallel, cpu::schedule::deterministic}) {
    d.ranges.clear();
    cpu::executor ex({.workers = 2, .policy = policy});
    ex.launch({dim3(4), dim3(32), 0, "drain"}, store_then_drain{}, slots.data());
    ASSERT_EQ(d.ranges.size(), 4u);
    std::vector<bool> seen(4, false);
    for (const auto& [p, bytes] : d.ranges) {
      EXPECT_EQ(bytes, 32 * sizeof(std::uint64_t));
      const auto block = std::size_t(static_cast<const std::uint64_t*>(p) - slots.data()) / 32;
      ASSERT_LT(block, 4u);
      seen[block] = true;
    }
    EXPECT_EQ(seen, std::vector<bool>(4, true));
  }
}

TEST(PersistRange, ARangeOutsideEveryDomainIsAnErrorNamingIt) {
  std::vector<std::uint64_t> unregistered(32, 0);
  cpu::executor ex({.workers = 1});
  try {
    ex.launch({dim3(1), dim3(32), 0, "drain"}, store_then_drain{}, unregistered.data());
    ADD_FAILURE() << "no error";
  } catch (const kernel_error& e) {
    EXPECT_NE(std::string(e.what()).find("not inside one mapped pool"), std::string::npos) << e.what();
  }
}

TEST(PersistRange, DomainsAreFoundByAddressAndMayNotOverlap) {
  std::vector<std::byte> a(256), b(256);
  remembering_domain da, db;
  scoped_persist_domain ra(&da, a.data(), a.size()), rb(&db, b.data(), b.size());
  EXPECT_EQ(find_persist_domain(a.data() + 10, 20), &da);
  EXPECT_EQ(find_persist_domain(b.data(), b.size()), &db);
  EXPECT_EQ(find_persist_domain(a.data() + 250, 20), nullptr);  // runs past the end
  EXPECT_THROW(register_persist_domain(&db, a.data() + 128, 16), config_error);
}

}  // namespace
