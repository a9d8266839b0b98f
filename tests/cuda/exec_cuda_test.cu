// Runs the shared test kernels on the GPU and on the cpu executor and
// requires equal results. Skips (with the reason) where no GPU is present.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/cuda/launch.cuh"
#include "gpmx/pm/cuda_pool.cuh"
#include "exec/reference_warp.hpp"
#include "kernels/exec_kernels.hpp"

// Inside namespace gpmx so that cuda:: and dim3 name gpmx's, not CUDA's.
namespace gpmx {
namespace {

// The lane whose value output k of test_kernels::warp_ops reads.
unsigned shuffle_source_of(std::size_t k, unsigned lane, int width) {
  switch (k) {
    case 4: return test::ref_shfl_idx(lane, int((lane * 5u + 1u) % 32u), width);
    case 5: return test::ref_shfl_up(lane, 3, width);
    case 6: return test::ref_shfl_down(lane, 2, width);
    case 7: return test::ref_shfl_xor(lane, 9, width);
    case 8: return test::ref_shfl_down(lane, 1, width);
    default: return test::ref_shfl_xor(lane, 1, width);
  }
}

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device present: GPU tests skipped";
  }
};

// Runs kernel with one output buffer (initialised to init) on both back ends.
template <class T, class Kernel, class... Args>
void expect_same(const launch_config& cfg, std::size_t n, T init, Kernel k, Args... args) {
  std::vector<T> host(n, init), dev_out(n, init);
  cpu::executor ex({.workers = 2});
  ex.launch(cfg, k, args..., host.data());
  cuda::device_buffer<T> d(n);
  d.upload(dev_out.data());
  cuda::launch(cfg, k, args..., d.get());
  cuda::synchronize(cfg.name);
  d.download(dev_out.data());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dev_out[i], host[i]) << cfg.name << " element " << i;
}

TEST_F(Cuda, IndicesMatch) {
  const launch_config cfg{dim3(3, 2, 2), dim3(8, 4, 2), 0, "indices"};
  expect_same<std::uint32_t>(cfg, cfg.grid.count() * cfg.block.count() * 8, 0u, test_kernels::indices{});
}

TEST_F(Cuda, WarpOperationsMatchForFullAndPartialMasks) {
  for (std::uint32_t mask : {0xffffffffu, 0x0000ffffu, 0xaaaaaaaau, 0x80000001u, 0x12345678u})
    for (int width : {32, 16, 8, 4}) {
      const launch_config cfg{dim3(3), dim3(64), 0, "warp_ops"};
      std::vector<std::uint32_t> host(3 * 64 * 10, 0xdeadbeef), gpu(host);
      cpu::executor ex({.workers = 2});
      ex.launch(cfg, test_kernels::warp_ops{}, mask, width, host.data());
      cuda::device_buffer<std::uint32_t> d(gpu.size());
      d.upload(gpu.data());
      cuda::launch(cfg, test_kernels::warp_ops{}, mask, width, d.get());
      cuda::synchronize();
      d.download(gpu.data());
      for (std::size_t i = 0; i < host.size(); ++i) {
        const std::size_t k = i % 10;
        const unsigned lane = unsigned(i / 10 % 32);
        if (k >= 4 && !(mask >> shuffle_source_of(k, lane, width) & 1u)) continue;  // undefined in CUDA
        ASSERT_EQ(gpu[i], host[i]) << "mask " << std::hex << mask << std::dec << " width " << width
                                   << " thread " << i / 10 << " output " << k;
      }
    }
}

TEST_F(Cuda, ActivemaskAfterExitMatches) {
  for (std::uint32_t live : {32u, 20u, 7u}) {
    const launch_config cfg{dim3(1), dim3(64), 0, "warp_after_exit"};
    std::vector<std::uint32_t> host(64 * 3, 0xdeadbeef), gpu(host);
    cpu::executor ex({.workers = 1});
    ex.launch(cfg, test_kernels::warp_after_exit{}, live, host.data());
    cuda::device_buffer<std::uint32_t> d(gpu.size());
    d.upload(gpu.data());
    cuda::launch(cfg, test_kernels::warp_after_exit{}, live, d.get());
    cuda::synchronize();
    d.download(gpu.data());
    for (std::size_t i = 0; i < gpu.size(); ++i) {
      const std::uint32_t lane = std::uint32_t(i / 3 % 32);
      // shfl_down from an exited lane is undefined in CUDA (an H100 gives 0)
      if (i % 3 == 2 && lane + 1 < 32 && lane + 1 >= live) continue;
      EXPECT_EQ(gpu[i], host[i]) << "live " << live << " thread " << i / 3 << " output " << i % 3;
    }
  }
}

TEST_F(Cuda, BlockReductionAndBarrierVotesMatch) {
  const std::uint32_t blocks = 37, block = 256;
  std::vector<std::uint32_t> in(blocks * block);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = test_kernels::mix(i) % 1000;
  cuda::device_buffer<std::uint32_t> din(in.size());
  din.upload(in.data());
  std::vector<std::uint64_t> host(blocks), gpu(blocks);
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(block)}, test_kernels::block_sum{}, in.data(), host.data());
  cuda::device_buffer<std::uint64_t> dout(blocks);
  cuda::launch({dim3(blocks), dim3(block), 0, "block_sum"}, test_kernels::block_sum{}, din.get(), dout.get());
  cuda::synchronize();
  dout.download(gpu.data());
  EXPECT_EQ(gpu, host);
  expect_same<int>({dim3(4), dim3(256), 0, "barrier_votes"}, 12, -1, test_kernels::barrier_votes{}, 7u);
}

TEST_F(Cuda, AtomicsUnderContentionMatch) {
  std::vector<std::uint64_t> init(10, 0);
  init[3] = init[6] = ~std::uint64_t(0);
  std::vector<std::uint64_t> host(init), gpu(init);
  std::vector<std::uint32_t> hinc(2, 0), ginc(2, 0);
  const launch_config cfg{dim3(64), dim3(256), 0, "atomics"};
  cpu::executor ex({.workers = 2});
  ex.launch(cfg, test_kernels::atomics_contention{}, host.data(), hinc.data());
  cuda::device_buffer<std::uint64_t> dw(10);
  cuda::device_buffer<std::uint32_t> di(2);
  dw.upload(gpu.data());
  di.upload(ginc.data());
  cuda::launch(cfg, test_kernels::atomics_contention{}, dw.get(), di.get());
  cuda::synchronize();
  dw.download(gpu.data());
  di.download(ginc.data());
  EXPECT_EQ(gpu, host);
  EXPECT_EQ(ginc, hinc);
}

TEST_F(Cuda, SpinWaitWithinABlock) {
  // Each back end gets a flag in its own memory.
  const launch_config cfg{dim3(1), dim3(64), 0, "flag_in_block"};
  std::vector<std::uint32_t> host_flag(1, 0), host(2, 0), gpu(2, 0);
  cpu::executor ex({.workers = 2});
  ex.launch(cfg, test_kernels::flag_in_block{}, host_flag.data(), host.data());
  cuda::device_buffer<std::uint32_t> flag(1), out(2);
  std::uint32_t zero[2] = {0, 0};
  flag.upload(zero);
  out.upload(zero);
  cuda::launch(cfg, test_kernels::flag_in_block{}, flag.get(), out.get());
  cuda::synchronize(cfg.name);
  out.download(gpu.data());
  EXPECT_EQ(gpu, host);
  EXPECT_EQ(host, (std::vector<std::uint32_t>{42, 41}));
}

TEST_F(Cuda, BadConfigurationIsRejectedBeforeLaunch) {
  EXPECT_THROW(cuda::launch({dim3(1), dim3(2048), 0, "too_big"}, test_kernels::fill{},
                            static_cast<std::uint32_t*>(nullptr), std::uint64_t(0)),
               config_error);
}

}  // namespace
}  // namespace gpmx

namespace gpmx {
namespace {

// A kernel stores into a registered pool through a PM view and persists;
// the host then reads the pool file's mapping.
struct pm_fill {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint64_t> v) const {
    v.bind(t)[t.global_id()] = t.global_id() * 5 + 1;
    t.gpm_persist();
  }
};

TEST_F(Cuda, KernelsStoreIntoARegisteredPool) {
  // tmpfs: Linux 6.5 and later refuse to pin a writable disk-file mapping.
  const auto dir = std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm")
                                                        : std::filesystem::temp_directory_path();
  const auto path = dir / "gpmx-cuda-pool-test.pool";
  std::filesystem::remove(path);
  {
    pm::pool p = pm::pool::create(path, 1 << 20, {.mode = pm::durability::msync});
    pm::region r = p.create_region("v", 4096 * 8);
    cuda::registered_pool reg(p);
    cuda::launch({dim3(16), dim3(256), 0, "pm_fill"}, pm_fill{}, reg.span<std::uint64_t>(r));
    cuda::synchronize();
    for (std::uint64_t i = 0; i < 4096; ++i) ASSERT_EQ(r.as<std::uint64_t>()[i], i * 5 + 1);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpmx

// GPM's API names on the GPU through a gpu_session: the gpKVS undo-log
// pattern of GPM's Figure 6 (gpm_map, gpmlog_*, gpm_persist), and a gpmcp
// checkpoint whose copy runs on the GPU.
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/pm_write_stats.hpp"
#include "gpmx/pm/gpm.hpp"
#include "gpmx/pm/gpm_checkpoint.hpp"

namespace gpmx {
namespace {

struct kv_pair {
  std::uint64_t key, value;
};

struct log_then_update {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, gpm::gpmlog l, pm::pm_span<kv_pair> kvs) const {
    auto v = kvs.bind(t);
    const std::uint64_t i = t.global_id();
    const kv_pair old = v[i];
    gpm::gpmlog_insert(t, l, &old, sizeof old);
    v[i] = kv_pair{old.key, old.value + 1};
    gpm::gpm_persist(t);
  }
};
struct undo_from_log {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, gpm::gpmlog l, pm::pm_span<kv_pair> kvs) const {
    kv_pair old{};
    gpm::gpmlog_read(t, l, &old, sizeof old);
    kvs.bind(t)[old.key] = old;
    gpm::gpm_persist(t);
    gpm::gpmlog_remove(t, l, sizeof old);
  }
};

TEST_F(Cuda, GpmNamesLogUpdateAndUndoOnTheGpu) {
  auto session = gpu_session::open();
  const std::filesystem::path dir = "/dev/shm";  // a GPU pins tmpfs pages only (Linux 6.5+)
  const std::string table_path = (dir / "gpmx-cuda-gpm.pm").string(), log_path = (dir / "gpmx-cuda-gpm.log").string();
  const std::size_t n = 512;
  auto* table = static_cast<kv_pair*>(gpm::gpm_map(table_path.c_str(), n * sizeof(kv_pair), true));
  for (std::size_t i = 0; i < n; ++i) table[i] = {i, i * 10};
  gpm::gpmlog* log = gpm::gpmlog_create_hcl(log_path.c_str(), 1 << 20, 2, 256);
  cuda::launch({dim3(2), dim3(256), 0, "log_then_update"}, log_then_update{}, *log, gpm::gpm_view(table, n));
  session->finish_kernel("log_then_update");
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table[i].value, i * 10 + 1);
  gpm::gpmlog_close(log);
  log = gpm::gpmlog_open(log_path.c_str());
  cuda::launch({dim3(2), dim3(256), 0, "undo_from_log"}, undo_from_log{}, *log, gpm::gpm_view(table, n));
  session->finish_kernel("undo_from_log");
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table[i].value, i * 10);
  gpm::gpmlog_close(log);
  gpm::gpm_unmap(table_path.c_str(), table, n * sizeof(kv_pair));
  std::filesystem::remove(table_path);
  std::filesystem::remove(log_path);

  // gpmcp: a buffer in kernel memory saved by a GPU copy, changed, restored.
  const std::string cp_path = (dir / "gpmx-cuda-gpm.cp").string();
  std::filesystem::remove(cp_path);
  kernel_vector<std::uint64_t> state(1 << 16);
  for (std::size_t i = 0; i < state.size(); ++i) state[i] = i * 7;
  gpmcp* cp = gpmcp_create(cp_path.c_str(), state.size() * 8, 1, 1);
  ASSERT_NE(cp, nullptr) << gpmcp_last_error();
  ASSERT_EQ(gpmcp_register(cp, state.data(), state.size() * 8, 0), 0) << gpmcp_last_error();
  ASSERT_EQ(gpmcp_checkpoint(cp, 0), 0) << gpmcp_last_error();
  for (auto& v : state) v = 0;
  ASSERT_EQ(gpmcp_restore(cp, 0), 0) << gpmcp_last_error();
  for (std::size_t i = 0; i < state.size(); ++i) ASSERT_EQ(state[i], i * 7) << i;
  gpmcp_close(cp);
  std::filesystem::remove(cp_path);
}

// Thread i stores i % 3 + 1 words, so lanes of a warp diverge; blocks of
// 100 threads end in a partial warp.
struct store_some_words {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint64_t> words) const {
    auto v = words.bind(t);
    const std::uint64_t i = t.global_id();
    for (std::uint64_t k = 0; k <= i % 3; ++k) v[i * 3 + k] = i + k;
  }
};

// pm_write_stats counts what GPU kernels store through PM views, the same
// bytes as the cpu executor's run of the same kernel.
TEST_F(Cuda, KernelPmStoresAreCountedAsOnTheCpu) {
  auto session = gpu_session::open();
  const std::string path = "/dev/shm/gpmx-cuda-count.pm";
  const std::size_t threads = 4 * 100, n = threads * 3;
  auto* words = static_cast<std::uint64_t*>(gpm::gpm_map(path.c_str(), n * 8, true));
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < threads; ++i) expected += (i % 3 + 1) * 8;
  const launch_config cfg{dim3(4), dim3(100), 0, "store_some_words"};
  cpu::executor ex({.workers = 1});

  std::uint64_t before = pm_write_stats::kernel_stores();
  launch_target(ex, session.get()).launch(cfg, store_some_words{}, gpm::gpm_view(words, n));
  EXPECT_EQ(pm_write_stats::kernel_stores() - before, expected);
  for (std::size_t i = 0; i < threads; ++i) ASSERT_EQ(words[i * 3 + i % 3], i + i % 3) << i;

  before = pm_write_stats::kernel_stores();
  launch_target(ex).launch(cfg, store_some_words{}, gpm::gpm_view(words, n));
  EXPECT_EQ(pm_write_stats::kernel_stores() - before, expected);

  before = pm_write_stats::kernel_stores();
  cuda::launch(cfg, store_some_words{}, gpm::gpm_view(words, n));  // not through a target: not counted
  session->finish_kernel("store_some_words");
  EXPECT_EQ(pm_write_stats::kernel_stores() - before, 0u);

  session.reset();  // a closed session's count stays in the total
  EXPECT_GE(pm_write_stats::kernel_stores(), 2 * expected);
  gpm::gpm_unmap(path.c_str(), words, n * 8);
  std::filesystem::remove(path);
}

// A GPU kernel's launch and its end (its stores durable) are crash points
// the host counts, so --crash-after and the restoration bench reach inside
// batches.
TEST_F(Cuda, EachKernelLaunchAndEndAreCrashPoints) {
  auto session = gpu_session::open();
  const std::string path = "/dev/shm/gpmx-cuda-points.pm";
  const std::size_t n = 300 * 3;
  auto* words = static_cast<std::uint64_t*>(gpm::gpm_map(path.c_str(), n * 8, true));
  cpu::executor ex({.workers = 1});
  crash_trigger::arm(0, nullptr);
  for (int k = 0; k < 3; ++k)
    launch_target(ex, session.get())
        .launch({dim3(3), dim3(100), 0, "store_some_words"}, store_some_words{}, gpm::gpm_view(words, n));
  const std::uint64_t points = crash_trigger::count();
  crash_trigger::disarm();
  EXPECT_EQ(points, 6u);
  gpm::gpm_unmap(path.c_str(), words, n * 8);
  std::filesystem::remove(path);
}

// Host-visible memory during a kernel: thread 0 says it is ready, then
// polls for the host's answer (a bounded number of times: a lost answer
// fails the test instead of hanging it) and stores what it saw plus one.
struct handshake {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* words) const {
    if (t.global_id() != 0) return;
    t.atomic_store(&words[0], 1u, memory_order::release, scope::system);
    std::uint32_t answer = 0;
    for (std::uint32_t i = 0; i < 4'000'000 && answer == 0; ++i)
      answer = t.atomic_load(&words[1], memory_order::acquire, scope::system);
    words[2] = answer + 1;
  }
};

// Answers 41 once the kernel says it is ready: it can only see "ready"
// while the kernel runs, and the kernel only finishes early if it saw 41.
class answering_agent final : public agent {
 public:
  explicit answering_agent(std::uint32_t* words) : words_(words) {}
  step_result step() override {
    if (answered_ || std::atomic_ref<std::uint32_t>(words_[0]).load(std::memory_order_acquire) == 0)
      return step_result::idle;
    std::atomic_ref<std::uint32_t>(words_[1]).store(41, std::memory_order_release);
    answered_ = true;
    return step_result::progressed;
  }
  std::string_view name() const override { return "answering"; }

 private:
  std::uint32_t* words_;
  bool answered_ = false;
};

TEST_F(Cuda, HostVisibleMemoryIsSharedWithAHostAgentWhileTheKernelRuns) {
  auto session = gpu_session::open();
  host_visible_vector<std::uint32_t> words(3, 0);
  EXPECT_TRUE(session->reaches(words.data(), words.size() * sizeof(std::uint32_t)));
  EXPECT_NE(host_visible_memory(), kernel_memory());
  cpu::executor ex({.workers = 1});
  answering_agent answer(words.data());
  {
    auto attached = ex.attach(answer);
    launch_target(ex, session.get()).launch({dim3(1), dim3(32), 0, "handshake"}, handshake{}, words.data());
  }
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 41u);
  EXPECT_EQ(words[2], 42u) << "the kernel did not see the host agent's answer";
  session.reset();
  EXPECT_EQ(host_visible_memory(), kernel_memory()) << "closing the session restores the resource";
}


// Stores each thread's rank into word rank * stride, then persists.
struct store_strided_and_persist {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint32_t> words, std::uint32_t stride) const {
    auto v = words.bind(t);
    const std::uint64_t i = t.global_id();
    v[i * stride] = std::uint32_t(i + 1);
    gpm::gpm_persist(t);
  }
};

// The GPU's emulated NVRAM charges whole sectors once per warp store (a
// warp's 32 consecutive words are 4 sectors of 32 bytes, scattered words a
// sector each), and its persists wait for the emulated device: a kernel
// cannot end before the device would have written what it was charged.
TEST_F(Cuda, KernelPmStoresAreChargedToTheGpuWriteThrottle) {
  auto session = gpu_session::open();
  const std::string path = "/dev/shm/gpmx-cuda-throttle.pm";
  const std::uint32_t threads = 4 * 128, stride = 16;  // 64 bytes apart: a sector each
  const std::size_t n = std::size_t(threads) * stride;
  auto* words = static_cast<std::uint32_t*>(gpm::gpm_map(path.c_str(), n * 4, true));
  const launch_config cfg{dim3(4), dim3(128), 0, "store_strided_and_persist"};
  cpu::executor ex({.workers = 1});
  EXPECT_THROW(session->throttle_pm_writes(0, 32), config_error);
  EXPECT_THROW(session->throttle_pm_writes(1e6, 48), config_error);
  {
    const double rate = 1e6;  // 1 MB/s: 20 KB take 20 ms
    auto throttle = session->throttle_pm_writes(rate, 32);
    EXPECT_NE(session->write_throttle_state(), nullptr);
    EXPECT_THROW(session->throttle_pm_writes(rate, 32), config_error) << "a second throttle on one session";
    const auto t0 = std::chrono::steady_clock::now();
    launch_target(ex, session.get()).launch(cfg, store_strided_and_persist{}, gpm::gpm_view(words, n), 1u);
    EXPECT_EQ(throttle->charged_bytes(), threads * 4u) << "coalesced: 4 bytes per thread in whole sectors";
    launch_target(ex, session.get()).launch(cfg, store_strided_and_persist{}, gpm::gpm_view(words, n), stride);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(throttle->charged_bytes(), threads * 4u + threads * 32u) << "scattered: a sector per thread";
    // A lower bound only (a slower machine takes longer, never shorter):
    // the emulated device writes at most `rate`. 2% for the clocks.
    EXPECT_GE(seconds, 0.98 * double(throttle->charged_bytes()) / rate);
    for (std::uint32_t i = 0; i < threads; ++i) ASSERT_EQ(words[std::size_t(i) * stride], i + 1) << i;
  }
  EXPECT_EQ(session->write_throttle_state(), nullptr) << "the handle's end removes the throttle";
  gpm::gpm_unmap(path.c_str(), words, n * 4);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpmx
