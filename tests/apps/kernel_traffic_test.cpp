// Workload kernels reach device and shared memory through global_span and
// shared_span, so an observer sees all of their memory traffic, not only PM.
// Under the deterministic schedule an observer counts every global and
// shared access of three workloads' kernels; each count is what the kernel's
// code does, worked out by hand below, and the observed run computes what
// an unobserved one does.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <vector>

#include "dnn/dnn_loss.hpp"
#include "gpkvs/gpkvs.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/observer.hpp"
#include "hotspot/hotspot.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

// Counts accesses by space and kind, and the bytes of each; only the
// deterministic schedule runs it, so it need not be thread-safe.
class traffic_counter final : public observer {
 public:
  void access(const thread_coords&, mem_space s, access_kind k, const void*, std::size_t bytes,
              const source_loc&) override {
    counts[unsigned(s)][unsigned(k)] += 1;
    bytes_of[unsigned(s)][unsigned(k)] += bytes;
  }
  void kernel_begin(std::string_view name, dim3, dim3, const source_loc&) override { kernels.emplace_back(name); }
  std::uint64_t count(mem_space s, access_kind k) const { return counts[unsigned(s)][unsigned(k)]; }
  std::uint64_t bytes(mem_space s, access_kind k) const { return bytes_of[unsigned(s)][unsigned(k)]; }
  void reset() { *this = traffic_counter(); }

  std::array<std::array<std::uint64_t, 2>, mem_space_count> counts{}, bytes_of{};
  std::vector<std::string> kernels;
};

constexpr auto load = access_kind::load;
constexpr auto store = access_kind::store;

// HotSpot (global only): per cell and time step the kernel loads its own
// and its four neighbours' temperatures (clamped at the edges, but always
// five loads) and its power, and stores one temperature. An iteration is two
// time steps.
TEST(KernelTraffic, HotspotLoadsSixAndStoresOnePerCellAndStep) {
  const std::uint64_t rows = 19, cols = 23, cells = rows * cols;
  hotspot::hotspot_app observed(rows, cols, 5), plain(rows, cols, 5);
  traffic_counter obs;
  cpu::executor det({.policy = cpu::schedule::deterministic, .seed = 7, .observer = &obs});
  cpu::executor par({.workers = 2});
  const std::uint64_t iterations = 3;
  for (std::uint64_t it = 0; it < iterations; ++it) {
    observed.step(det, it);
    plain.step(par, it);
  }
  const std::uint64_t steps = 2 * iterations;
  EXPECT_EQ(obs.kernels.size(), steps);
  EXPECT_EQ(obs.count(mem_space::global, load), steps * cells * 6);
  EXPECT_EQ(obs.count(mem_space::global, store), steps * cells);
  EXPECT_EQ(obs.bytes(mem_space::global, load), steps * cells * 6 * sizeof(float));
  EXPECT_EQ(obs.bytes(mem_space::global, store), steps * cells * sizeof(float));
  EXPECT_EQ(obs.count(mem_space::shared, load) + obs.count(mem_space::shared, store), 0u);
  EXPECT_EQ(obs.count(mem_space::pm, load) + obs.count(mem_space::pm, store), 0u);
  // Observed or not, the temperatures are the same bits.
  ASSERT_EQ(std::memcmp(observed.temp.data(), plain.temp.data(), cells * sizeof(float)), 0);
}

// gpKVS's baseline on a table in device memory: a SET batch runs a group of
// `ways` threads per pair, each loading the pair (16 bytes) and the set's
// `ways` pairs, and the one thread whose way is chosen stores the pair; a
// GET loads its key (8 bytes) and the set's pairs, and stores the value of
// a key it finds.
TEST(KernelTraffic, GpkvsBaselineSetAndGetCountEveryWayRead) {
  const std::uint32_t sets = 64, n = 40;
  std::vector<gpkvs::kv_pair> observed_table(std::uint64_t(sets) * gpkvs::ways), plain_table = observed_table;
  traffic_counter obs;
  cpu::executor det({.policy = cpu::schedule::deterministic, .seed = 3, .observer = &obs});
  cpu::executor par({.workers = 2});
  for (std::uint64_t b = 0; b < 3; ++b) {
    const std::vector<gpkvs::kv_pair> batch = gpkvs::make_batch(11, b, n, sets);
    obs.reset();
    gpkvs::set_batch_dram(det, observed_table, sets, batch);
    gpkvs::set_batch_dram(par, plain_table, sets, batch);
    const std::uint64_t threads = batch.size() * gpkvs::ways;
    EXPECT_EQ(obs.count(mem_space::global, load), threads * (1 + gpkvs::ways)) << "batch " << b;
    EXPECT_EQ(obs.bytes(mem_space::global, load), threads * (1 + gpkvs::ways) * sizeof(gpkvs::kv_pair));
    EXPECT_EQ(obs.count(mem_space::global, store), batch.size()) << "batch " << b;
    EXPECT_EQ(obs.bytes(mem_space::global, store), batch.size() * sizeof(gpkvs::kv_pair));
  }
  ASSERT_EQ(observed_table, plain_table);

  // Half the keys stored, half (probably) not.
  std::vector<std::uint64_t> keys;
  std::set<std::uint64_t> stored;
  for (const gpkvs::kv_pair& p : observed_table)
    if (p.key != 0) stored.insert(p.key);
  for (std::uint64_t k : stored) keys.push_back(k);
  for (std::uint64_t k = 1; keys.size() < 2 * stored.size(); ++k)
    if (!stored.count(k + (1ull << 40))) keys.push_back(k + (1ull << 40));
  obs.reset();
  const std::vector<std::uint64_t> got = gpkvs::get_batch_dram(det, observed_table, sets, keys);
  EXPECT_EQ(got, gpkvs::get_batch_dram(par, plain_table, sets, keys));
  EXPECT_EQ(obs.count(mem_space::global, load), keys.size() * (1 + gpkvs::ways));
  EXPECT_EQ(obs.bytes(mem_space::global, load), keys.size() * (8 + gpkvs::ways * sizeof(gpkvs::kv_pair)));
  // A key lies in at most one way of its set: one store per key found.
  EXPECT_EQ(obs.count(mem_space::global, store), stored.size());
  EXPECT_EQ(obs.bytes(mem_space::global, store), stored.size() * 8);
}

// DNN's loss kernel with its outputs in device memory: each block reduces a
// share of the batch's losses in shared memory. Thread r stores its sum in
// sum[r]; the halving steps (32, 16, ..., 1 threads) each load two sums and
// store one; thread 0 loads sum[0] and stores the block's partial sum; the
// last block to arrive (epoch) loads every partial sum and stores the mean.
TEST(KernelTraffic, DnnLossKernelCountsItsSharedReduction) {
  const std::uint32_t batch = 200;  // 50 losses per block
  std::vector<float> losses(batch);
  for (std::uint32_t i = 0; i < batch; ++i) losses[i] = 0.01f * float(i % 37) + 0.5f;
  std::vector<float> partials(16, 0.0f), history(4, 0.0f);
  std::vector<std::uint32_t> arrived(1, 0);
  std::vector<std::uint64_t> flags(dnn::loss_blocks, 0);
  traffic_counter obs;
  cpu::executor det({.policy = cpu::schedule::deterministic, .seed = 5, .observer = &obs});
  const std::uint64_t iteration = 2;
  det.launch({dim3(dnn::loss_blocks), dim3(dnn::loss_threads), 0, "dnn_loss"}, dnn::loss_kernel{},
             global_span<const float>(losses.data(), losses.size()), batch,
             global_span<float>(partials.data(), partials.size()), global_span<float>(history.data(), history.size()),
             iteration, pm::ordering::epoch, arrived.data(), flags.data());

  const std::uint64_t blocks = dnn::loss_blocks, threads = dnn::loss_threads;
  const std::uint64_t halving = threads - 1;  // 32 + 16 + ... + 1 threads
  EXPECT_EQ(obs.count(mem_space::shared, store), blocks * (threads + halving));
  EXPECT_EQ(obs.count(mem_space::shared, load), blocks * (2 * halving + 1));
  EXPECT_EQ(obs.bytes(mem_space::shared, load) + obs.bytes(mem_space::shared, store),
            (obs.count(mem_space::shared, load) + obs.count(mem_space::shared, store)) * sizeof(float));
  // Every loss once, then the last block's loads of the partial sums.
  EXPECT_EQ(obs.count(mem_space::global, load), batch + blocks);
  EXPECT_EQ(obs.count(mem_space::global, store), blocks + 1);  // the partial sums, the mean
  EXPECT_EQ(obs.count(mem_space::pm, load) + obs.count(mem_space::pm, store), 0u);

  // The same sums in the same order as the kernel: bitwise the mean.
  const std::uint32_t per = (batch + dnn::loss_blocks - 1) / dnn::loss_blocks;
  float total = 0;
  for (std::uint32_t k = 0; k < dnn::loss_blocks; ++k) {
    std::array<float, dnn::loss_threads> sum{};
    for (std::uint32_t r = 0; r < dnn::loss_threads; ++r)
      for (std::uint32_t b = k * per + r; b < std::min((k + 1) * per, batch); b += dnn::loss_threads) sum[r] += losses[b];
    for (std::uint32_t half = dnn::loss_threads / 2; half > 0; half /= 2)
      for (std::uint32_t r = 0; r < half; ++r) sum[r] += sum[r + half];
    EXPECT_EQ(partials[k], sum[0]) << "block " << k;
    total += sum[0];
  }
  EXPECT_EQ(history[iteration], total / float(batch));
}

}  // namespace
