#pragma once
// A producer agent and spinning consumer kernels: the agent tests' workload.
#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "gpmx/exec/agent.hpp"
#include "gpmx/exec/cpu/executor.hpp"

namespace agent_test {
using namespace gpmx;

// Publishes one item per step: items[i] = 1000 + i, then count = i + 1.
class producer final : public agent {
 public:
  producer(std::vector<std::uint64_t>& items, std::uint64_t* count) : items_(items), count_(count) {}
  step_result step() override {
    std::atomic_ref<std::uint64_t> c(*count_);
    const std::uint64_t i = c.load(std::memory_order_relaxed);
    if (i == items_.size()) return step_result::idle;
    items_[i] = 1000 + i;
    c.store(i + 1, std::memory_order_release);
    ++steps;
    return step_result::progressed;
  }
  std::string_view name() const override { return "producer"; }
  std::uint64_t steps = 0;

 private:
  std::vector<std::uint64_t>& items_;
  std::uint64_t* count_;
};

// Thread g waits until item g is published, then copies it.
struct consumer {
  void operator()(auto& t, const std::uint64_t* items, std::uint64_t* count, std::uint64_t* out) const {
    const std::uint64_t g = t.global_id();
    t.spin_wait([&] { return t.atomic_load(count, memory_order::acquire) > g; });
    out[g] = items[g];
  }
};

struct run_result {
  std::vector<std::uint64_t> out;
  std::uint64_t steps;
};

inline run_result consume(cpu::executor& ex, unsigned blocks, unsigned threads) {
  const std::size_t n = std::size_t(blocks) * threads;
  std::vector<std::uint64_t> items(n, 0), out(n, 0);
  std::uint64_t count = 0;
  producer p(items, &count);
  auto on = ex.attach(p);
  ex.launch({dim3(blocks), dim3(threads), 0, "consumer"}, consumer{}, items.data(), &count, out.data());
  return {out, p.steps};
}

inline void expect_all_consumed(const run_result& r) {
  for (std::size_t i = 0; i < r.out.size(); ++i) ASSERT_EQ(r.out[i], 1000 + i) << "item " << i;
  EXPECT_EQ(r.steps, r.out.size());
}

}  // namespace agent_test
