// Observers see a kernel's whole memory traffic through the device- and
// shared-memory views, its barriers, warp collectives and atomics; views
// compute the same results observed or not.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/mem_view.hpp"

namespace {
using namespace gpmx;

// Counts events by kind; thread-safe so the parallel schedule may use it.
class counting_observer final : public observer {
 public:
  explicit counting_observer(std::uint8_t spaces = all_spaces) : spaces_(spaces) {}
  std::uint8_t observed_spaces() const override { return spaces_; }
  bool thread_safe() const override { return true; }
  void kernel_begin(std::string_view, dim3, dim3, const source_loc&) override { ++begins; }
  void kernel_end(std::string_view) override { ++ends; }
  void access(const thread_coords&, mem_space s, access_kind k, const void*, std::size_t bytes,
              const source_loc&) override {
    accesses[unsigned(s)][unsigned(k)] += 1;
    bytes_seen += bytes;
  }
  void barrier(const thread_coords&, const source_loc&) override { ++barriers; }
  void warp_collective(const thread_coords&, warp_op op, std::uint32_t, const source_loc&) override {
    if (op == warp_op::shfl_down) ++shuffles;
  }
  void atomic(const thread_coords&, atomic_op op, scope, const void*, std::size_t, std::uint64_t,
              std::uint64_t, const source_loc&) override {
    if (op == atomic_op::add) ++atomic_adds;
  }
  std::uint64_t count(mem_space s, access_kind k) const { return accesses[unsigned(s)][unsigned(k)]; }

  std::array<std::array<std::atomic<std::uint64_t>, 2>, mem_space_count> accesses{};
  std::atomic<std::uint64_t> bytes_seen{0}, barriers{0}, shuffles{0}, atomic_adds{0}, begins{0}, ends{0};

 private:
  std::uint8_t spaces_;
};

// Each block stages its inputs in shared memory, sums them by halving, then
// reduces the warp sums by shuffles; thread 0 adds the block's sum to a total.
struct staged_sum {
  void operator()(auto& t, global_span<const std::uint32_t> in, global_span<std::uint32_t> out,
                  std::uint32_t* total) const {
    GPMX_SHARED(t, std::uint32_t, tile, 64);
    auto s = shared_span<std::uint32_t>(tile, 64).bind(t);
    auto src = in.bind(t);
    auto dst = out.bind(t);
    const std::uint32_t r = t.thread_rank();
    s[r] = src[t.global_id()];                    // 1 global load, 1 shared store
    t.syncthreads();
    if (r < 32) s[r] += s[r + 32];                // 32 threads: 2 shared loads, 1 store
    t.syncthreads();
    if (r < 32) {
      std::uint32_t v = s[r];                     // 1 shared load
      for (unsigned d = 16; d > 0; d /= 2) v += t.shfl_down(0xffffffffu, v, d);
      if (r == 0) {
        dst[t.block_rank()] = v;                  // 1 global store
        t.atomic_add(total, v);
      }
    }
  }
};

struct sum_run {
  std::vector<std::uint32_t> out;
  std::uint32_t total = 0;
};

sum_run run_sum(cpu::executor& ex, unsigned blocks) {
  std::vector<std::uint32_t> in(blocks * 64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint32_t(i * 7 + 3);
  sum_run r;
  r.out.assign(blocks, 0);
  ex.launch({dim3(blocks), dim3(64), 0, "staged_sum"}, staged_sum{},
            global_span<const std::uint32_t>(in.data(), in.size()),
            global_span<std::uint32_t>(r.out.data(), r.out.size()), &r.total);
  return r;
}

TEST(Observer, SeesEveryMemorySpaceAndCollective) {
  const unsigned blocks = 5;
  for (auto policy : {cpu::schedule::parallel, cpu::schedule::deterministic}) {
    counting_observer obs;
    cpu::executor ex({.workers = 2, .policy = policy, .seed = 3, .observer = &obs});
    const sum_run r = run_sum(ex, blocks);
    EXPECT_EQ(obs.count(mem_space::global, access_kind::load), blocks * 64);
    EXPECT_EQ(obs.count(mem_space::global, access_kind::store), blocks);
    EXPECT_EQ(obs.count(mem_space::shared, access_kind::store), blocks * (64 + 32));
    EXPECT_EQ(obs.count(mem_space::shared, access_kind::load), blocks * (2 * 32 + 32));
    EXPECT_EQ(obs.count(mem_space::pm, access_kind::store), 0u);
    EXPECT_EQ(obs.bytes_seen, 4 * (blocks * 64 + blocks + blocks * 96 + blocks * 96));
    EXPECT_EQ(obs.barriers, blocks * 64 * 2);
    EXPECT_EQ(obs.shuffles, blocks * 32 * 5);
    EXPECT_EQ(obs.atomic_adds, blocks);
    EXPECT_EQ(obs.begins, 1u);
    EXPECT_EQ(obs.ends, 1u);
    std::uint32_t total = 0;
    for (std::uint32_t v : r.out) total += v;
    EXPECT_EQ(r.total, total);
  }
}

TEST(Observer, SeesOnlyTheSpacesItAsksFor) {
  counting_observer obs(space_bit(mem_space::shared));
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &obs});
  run_sum(ex, 2);
  EXPECT_EQ(obs.count(mem_space::global, access_kind::load), 0u);
  EXPECT_EQ(obs.count(mem_space::global, access_kind::store), 0u);
  EXPECT_EQ(obs.count(mem_space::shared, access_kind::store), 2u * 96);
  EXPECT_EQ(obs.barriers, 2u * 64 * 2);  // synchronization is always reported
}

TEST(Observer, ViewsComputeTheSameObservedOrNot) {
  cpu::executor plain({.workers = 2});
  counting_observer obs;
  cpu::executor observed({.policy = cpu::schedule::deterministic, .seed = 9, .observer = &obs});
  const sum_run a = run_sum(plain, 7), b = run_sum(observed, 7);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.total, b.total);
}

// Unobserved launches run kernels with the context whose record calls
// compile away; observed ones with the context that reports them.
TEST(Observer, ALaunchGetsTheUnobservedContextOnlyWithoutAnObserver) {
  auto context_kind = [](cpu::executor& ex) {
    std::atomic<int> unobserved{0}, observed{0};
    ex.launch({dim3(2), dim3(40), 0, "which_context"}, [&](auto& t) {
      using ctx = std::remove_cvref_t<decltype(t)>;
      if constexpr (std::is_same_v<ctx, cpu::unobserved_thread_ctx>) ++unobserved;
      else if constexpr (std::is_same_v<ctx, cpu::thread_ctx>) ++observed;
    });
    return std::pair{unobserved.load(), observed.load()};
  };
  cpu::executor plain({.workers = 2});
  cpu::executor plain_deterministic({.policy = cpu::schedule::deterministic, .seed = 3});
  counting_observer obs;
  cpu::executor watched({.policy = cpu::schedule::deterministic, .seed = 3, .observer = &obs});
  EXPECT_EQ(context_kind(plain), std::pair(80, 0));
  EXPECT_EQ(context_kind(plain_deterministic), std::pair(80, 0));
  EXPECT_EQ(context_kind(watched), std::pair(0, 80));
}

TEST(Observer, TheParallelScheduleTakesOnlyAThreadSafeObserver) {
  struct single_threaded final : observer {} obs;
  EXPECT_THROW(cpu::executor({.workers = 2, .observer = &obs}), config_error);
  EXPECT_NO_THROW(cpu::executor({.policy = cpu::schedule::deterministic, .observer = &obs}));
}

TEST(Observer, AFailedLaunchIsNotReportedAsEnded) {
  counting_observer obs;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &obs});
  EXPECT_THROW(ex.launch({dim3(1), dim3(32), 0, "throws"}, [](auto& t) {
    if (t.thread_rank() == 3) throw std::runtime_error("boom");
  }), kernel_error);
  EXPECT_EQ(obs.begins, 1u);
  EXPECT_EQ(obs.ends, 0u);
}

}  // namespace
