// The persistency hardware end to end: kernels run in the timed mode on the
// GPU model with each persistency model, and the times and counts they see
// follow from the configuration (the sums docs/sim-persistency.md states).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "sim/sim_test_util.hpp"

namespace {
using namespace gpmx;
using sim::testing::cycles_ps;
using sim::testing::transfer_ps;

// The GPU model, with every issue's time and kind recorded.
class logged_gpu final : public timing_model {
 public:
  explicit logged_gpu(const sim::sim_config& c) : gpu(c) {}
  struct issued {
    vtime at;
    timed_kind kind;
  };
  timed_machine machine() const override { return gpu.machine(); }
  void launch_begin(std::string_view n, dim3 g, dim3 b, vtime now) override { gpu.launch_begin(n, g, b, now); }
  issue_result issue(const warp_instruction& in, vtime now) override {
    log.push_back({now, in.ops[std::countr_zero(in.lanes)].kind});
    return gpu.issue(in, now);
  }
  vtime next_event() const override { return gpu.next_event(); }
  void advance(vtime t, timed_waker& w) override { gpu.advance(t, w); }
  void block_started(std::uint64_t b, std::uint32_t sm, vtime now) override { gpu.block_started(b, sm, now); }
  void block_finished(std::uint64_t b, std::uint32_t sm, vtime now) override { gpu.block_finished(b, sm, now); }
  vtime launch_end(vtime now, const sm_activity* sms) override { return gpu.launch_end(now, sms); }
  void launch_failed() override { gpu.launch_failed(); }
  std::uint8_t observed_spaces() const override { return 0; }
  void pool_mapped(const void* base, std::uint64_t length, std::string_view path) override {
    gpu.pool_mapped(base, length, path);
  }
  void pool_unmapped(const void* base) override { gpu.pool_unmapped(base); }

  // When the first instruction of `kind` after the n-th of `after` issued.
  vtime first_after(timed_kind after, timed_kind kind, std::size_t n = 0) const {
    bool seen = false;
    for (const issued& i : log) {
      if (seen && i.kind == kind) return i.at;
      if (i.kind == after && n-- == 0) seen = true;
    }
    return vtime_never;
  }
  vtime first(timed_kind kind) const {
    for (const issued& i : log)
      if (i.kind == kind) return i.at;
    return vtime_never;
  }
  sim::gpu_model gpu;
  std::vector<issued> log;
};

struct pm_run {
  scratch_dir dir;
  logged_gpu gpu;
  cpu::executor ex;
  pm::pool pool;
  pm::region region;
  explicit pm_run(const sim::sim_config& c)
      : gpu(c),
        ex({.policy = cpu::schedule::timed, .timing = &gpu}),
        pool(pm::pool::create(dir / "p.pool", 4 << 20, {.mode = pm::durability::none})),
        region(pool.create_region("data", 1 << 20)) {}
  pm::pm_span<std::uint32_t> words() { return region.span<std::uint32_t>(); }
  sim::picos launch_picos() const {
    const auto& l = gpu.gpu.totals().launches.back();
    return l.end - l.start;
  }
};

sim::sim_config with(const char* model, sim::pm_location where = sim::pm_location::near) {
  sim::sim_config c;
  sim::set_parameter(c, "persist.model", model);
  c.pm.location = where;
  return c;
}

// One persist's way from the SM to durability and its acknowledgement back
// (a 32-byte sector): the SM's port, the L2 bank, on PM-far PCIe up and the
// host's way to its memory controller (or LLC, under eADR), the NVM write
// when durability means the media (not its queue), and the
// acknowledgement's return.
double persist_path_ps(const sim::sim_config& c) {
  double ps = transfer_ps(32, sim::testing::per_cycle_gbs(c, c.icnt.port_bytes_per_cycle)) +
              cycles_ps(c, c.icnt.latency) + transfer_ps(32, sim::testing::per_cycle_gbs(c, c.l2.bank_bytes_per_cycle)) +
              cycles_ps(c, c.l2.latency) + cycles_ps(c, c.icnt.latency);
  const bool far = c.pm.location == sim::pm_location::far;
  if (c.persist.domain == sim::durable_point::partition) return ps;  // durable as it leaves the L2
  if (far) ps += transfer_ps(32, c.pcie.bandwidth_gbs) + 2 * c.pcie.latency_ns * 1000 + c.host.llc_latency_ns * 1000;
  if (c.persist.domain == sim::durable_point::media && !(far && c.persist.eadr))
    ps += transfer_ps(32, c.nvm.write_gbs) + c.nvm.latency_ns * 1000;
  return ps;
}

// Lane 0 stores one PM word and makes it durable, then stores a global word.
struct persist_one {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, global_span<std::uint32_t> out, bool sbrp) const {
    if (t.thread_rank() != 0) return;
    pm.bind(t)[0] = 1;
    if (sbrp) t.dfence();
    else t.gpm_persist();
    out.bind(t)[0] = 2;
  }
};

TEST(TimedPersistency, ADFenceWaitsForItsPersistToBeDurableAndAcknowledged) {
  for (const sim::pm_location where : {sim::pm_location::near, sim::pm_location::far})
    for (const sim::durable_point domain :
         {sim::durable_point::queue, sim::durable_point::media, sim::durable_point::partition})
      for (const bool eadr : {false, true}) {
        sim::sim_config c = with("sbrp", where);
        c.persist.domain = domain;
        c.persist.eadr = eadr;
        pm_run r(c);
        std::uint32_t out = 0;
        r.ex.launch({.grid = 1, .block = 32}, persist_one{}, r.words(), global_span<std::uint32_t>(&out, 1), true);
        const vtime after = r.gpu.first_after(timed_kind::ordering, timed_kind::store);
        // The persist went at the store's issue (time 0): the fence's warp
        // goes on a cycle after its acknowledgement.
        const double expected = persist_path_ps(c) + cycles_ps(c, 1);
        EXPECT_NEAR(double(after), expected, 0.01 * expected)
            << "pm " << sim::to_string(where) << ", durable at the " << sim::to_string(domain) << ", eadr " << eadr;
        EXPECT_EQ(r.gpu.gpu.persistency().stats().held_warps, 1u);
      }
}

TEST(TimedPersistency, EADROnPMFarSavesTheNVMWriteButNotPCIe) {
  sim::sim_config c = with("sbrp", sim::pm_location::far);
  c.persist.domain = sim::durable_point::media;
  pm_run adr(c);
  c.persist.eadr = true;
  pm_run eadr(c);
  std::uint32_t out = 0;
  adr.ex.launch({.grid = 1, .block = 32}, persist_one{}, adr.words(), global_span<std::uint32_t>(&out, 1), true);
  eadr.ex.launch({.grid = 1, .block = 32}, persist_one{}, eadr.words(), global_span<std::uint32_t>(&out, 1), true);
  const double measured = double(adr.gpu.first_after(timed_kind::ordering, timed_kind::store)) -
                          double(eadr.gpu.first_after(timed_kind::ordering, timed_kind::store));
  const double nvm_write = transfer_ps(32, c.nvm.write_gbs) + c.nvm.latency_ns * 1000;
  EXPECT_NEAR(measured, nvm_write, 0.01 * nvm_write);
}

TEST(TimedPersistency, AnEpochBarrierFlushesTheLineAndWaitsForItToBeDurable) {
  for (const char* model : {"epoch", "gpm"}) {
    const sim::sim_config c = with(model);
    pm_run r(c);
    std::uint32_t out = 0;
    r.ex.launch({.grid = 1, .block = 32}, persist_one{}, r.words(), global_span<std::uint32_t>(&out, 1), false);
    const vtime barrier = r.gpu.first(timed_kind::ordering);
    const vtime after = r.gpu.first_after(timed_kind::ordering, timed_kind::store);
    // The barrier writes the dirty line when it issues and holds the warp
    // until the acknowledgement.
    const double expected = double(barrier) + persist_path_ps(c);
    EXPECT_NEAR(double(after), expected, 0.01 * expected) << model;
    EXPECT_EQ(r.gpu.gpu.persistency().stats().barriers, 1u) << model;
    EXPECT_EQ(r.gpu.gpu.persistency().stats().held_warps, 0u) << model;
  }
}

// Lane 0 reads PM word 0, stores PM word 64 (another line), orders, and
// reads word 0 again.
struct read_order_read {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, global_span<std::uint32_t> out) const {
    if (t.thread_rank() != 0) return;
    auto a = pm.bind(t);
    std::uint32_t v = a[0];
    a[64] = 5;
    t.ofence();
    v += a[0];
    out.bind(t)[0] = v;
  }
};

TEST(TimedPersistency, AnEpochBarrierDropsTheL1sPMLinesAndAnOFenceKeepsThem) {
  auto pm_read_misses = [](const char* model) {
    pm_run r(with(model));
    std::uint32_t out = 0;
    r.ex.launch({.grid = 1, .block = 32}, read_order_read{}, r.words(), global_span<std::uint32_t>(&out, 1));
    return r.gpu.gpu.memory().stats().l1[1][0].misses;  // [pm][load]
  };
  EXPECT_EQ(pm_read_misses("epoch"), 2u);
  EXPECT_EQ(pm_read_misses("sbrp"), 1u);
}

// Lane 0 stores PM, releases a flag at `s`, then stores a global word.
struct release_then_store {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, std::uint32_t* flag, global_span<std::uint32_t> out,
                  scope s) const {
    if (t.thread_rank() != 0) return;
    pm.bind(t)[0] = 1;
    t.prel(s, flag, 1u);
    out.bind(t)[0] = 2;
  }
};

TEST(TimedPersistency, ABlockScopePRelStaysInTheSMAndADeviceScopeOneWaitsForDurability) {
  auto after_release = [](scope s, bool promote) {
    sim::sim_config c = with("sbrp");
    c.persist.promote_scopes = promote;
    pm_run r(c);
    std::uint32_t flag = 0, out = 0;
    r.ex.launch({.grid = 1, .block = 32}, release_then_store{}, r.words(), &flag, global_span<std::uint32_t>(&out, 1),
                s);
    EXPECT_EQ(flag, 1u);
    return double(r.gpu.first_after(timed_kind::flag_release, timed_kind::store) -
                  r.gpu.first(timed_kind::flag_release));
  };
  const sim::sim_config c = with("sbrp");
  EXPECT_LT(after_release(scope::block, false), cycles_ps(c, 4));
  const double durable = persist_path_ps(c);
  EXPECT_GT(after_release(scope::device, false), 0.95 * durable);
  EXPECT_GT(after_release(scope::block, true), 0.95 * durable) << "promoted to device scope";
}

// Every lane stores a PM word, acquires a flag (already set) at block
// scope, stores another PM word, meets the others at a block barrier and
// stores a global word (one warp: no lane waits for another).
struct store_acquire_sync {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, std::uint32_t* flag, global_span<std::uint32_t> out) const {
    const std::uint32_t lane = t.thread_rank();
    pm.bind(t)[lane] = 1;
    (void)t.pacq(scope::block, flag);
    pm.bind(t)[64 + lane] = 2;  // dirty again before the barrier
    t.syncthreads();
    out.bind(t)[lane] = 3;
  }
};

TEST(TimedPersistency, WithSyncBarriersAnEpochAcquireAndABlockBarrierFlushAndWait) {
  struct timing {
    double acquire_wait, barrier_wait;
    std::uint64_t barriers;
  };
  auto run = [](bool sync_barriers) {
    sim::sim_config c = with("epoch");
    c.persist.epoch_sync_barriers = sync_barriers;
    pm_run r(c);
    std::uint32_t flag = 1;
    std::vector<std::uint32_t> out(32, 0);
    r.ex.launch({.grid = 1, .block = 32}, store_acquire_sync{}, r.words(), &flag,
                global_span<std::uint32_t>(out.data(), out.size()));
    EXPECT_EQ(out[31], 3u);
    // The acquire's wait shows as the time from it to the next store; the
    // barrier's, from the barrier to the global store after it.
    return timing{double(r.gpu.first_after(timed_kind::flag_acquire, timed_kind::store) -
                         r.gpu.first(timed_kind::flag_acquire)),
                  double(r.gpu.first_after(timed_kind::barrier, timed_kind::store) - r.gpu.first(timed_kind::barrier)),
                  r.gpu.gpu.persistency().stats().barriers};
  };
  const sim::sim_config c = with("epoch");
  const double durable = persist_path_ps(c);
  const timing off = run(false), on = run(true);
  EXPECT_EQ(off.barriers, 0u);
  EXPECT_LT(off.barrier_wait, 0.5 * durable);
  EXPECT_EQ(on.barriers, 2u);
  // The acquire's barrier writes the dirty line and waits for it before its
  // load; the load then misses (the barrier dropped the PM lines).
  EXPECT_GT(on.acquire_wait, off.acquire_wait + 0.95 * durable);
  EXPECT_GT(on.barrier_wait, 0.95 * durable);
}

// Warp 1 spins on a block-scope persist acquire of a flag that warp 0 sets
// after a few shared-memory round trips; warp 0 stores PM first.
struct spin_on_acquire {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, std::uint32_t* flag) const {
    if (t.thread_rank() == 0) {
      pm.bind(t)[0] = 1;
      for (int i = 0; i < 8; ++i) pm.bind(t)[64 * (i + 1)] = std::uint32_t(i);
      t.atomic_store(flag, 1u, memory_order::release, scope::block);
    }
    if (t.thread_rank() == 32) t.spin_wait([&] { return t.pacq(scope::block, flag) != 0u; });
  }
};

TEST(TimedPersistency, WithSyncBarriersEveryTryOfASpinOnAnAcquireIsABarrier) {
  sim::sim_config c = with("epoch");
  c.persist.epoch_sync_barriers = true;
  pm_run r(c);
  std::uint32_t flag = 0;
  r.ex.launch({.grid = 1, .block = 64}, spin_on_acquire{}, r.words(), &flag);
  std::uint64_t tries = 0;
  for (const auto& i : r.gpu.log) tries += i.kind == timed_kind::flag_acquire || i.kind == timed_kind::spin;
  ASSERT_GT(tries, 1u) << "the spin should have tried more than once";
  EXPECT_EQ(r.gpu.gpu.persistency().stats().barriers, tries);
}

// Lane 0 stores PM words on `lines` lines, then acquires a set flag at
// device scope and stores a global word.
struct persists_then_device_acquire {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, std::uint32_t* flag, global_span<std::uint32_t> out,
                  std::uint32_t lines) const {
    if (t.thread_rank() != 0) return;
    for (std::uint32_t i = 0; i < lines; ++i) pm.bind(t)[32 * i] = 1;
    (void)t.pacq(scope::device, flag);
    out.bind(t)[0] = 2;
  }
};

TEST(TimedPersistency, WithDeviceAcquireWaitsADeviceScopePAcqWaitsForEarlierPersists) {
  auto wait = [](bool waits) {
    // Far: the persists' round trip is longer than the flag's read, which
    // the acquire sends at once (the wait and the read overlap).
    sim::sim_config c = with("sbrp", sim::pm_location::far);
    c.persist.flush = sim::flush_policy::lazy;  // nothing leaves the buffer unless something needs it
    c.persist.device_acquire_waits = waits;
    pm_run r(c);
    std::uint32_t flag = 1, out = 0;
    r.ex.launch({.grid = 1, .block = 32}, persists_then_device_acquire{}, r.words(), &flag,
                global_span<std::uint32_t>(&out, 1), 4u);
    EXPECT_EQ(out, 2u);
    return double(r.gpu.first_after(timed_kind::flag_acquire, timed_kind::store) - r.gpu.first(timed_kind::flag_acquire));
  };
  const double durable = persist_path_ps(with("sbrp", sim::pm_location::far));
  const double off = wait(false), on = wait(true);
  EXPECT_LT(off, 0.5 * durable) << "without it the acquire is its read";
  EXPECT_GT(on, 0.95 * durable) << "the buffered persists are written and acknowledged first";
}

// Lane i of the warp stores one PM word on line i (`lines` lanes), then dfence.
struct spread_persists {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm, std::uint32_t lines) const {
    if (t.thread_rank() >= lines) return;
    pm.bind(t)[32 * t.thread_rank()] = 1;
    t.dfence();
  }
};

TEST(TimedPersistency, TheWindowSendsPersistsInWavesOfItsSize) {
  auto fence_picos = [](const char* flush, std::uint32_t window) {
    sim::sim_config c = with("sbrp");
    sim::set_parameter(c, "persist.flush", flush);
    c.persist.window = window;
    // Durable at the media: the round trip (431 ns) dwarfs the cycles the
    // port takes to send twelve sectors, so each wave costs one round trip.
    c.persist.domain = sim::durable_point::media;
    pm_run r(c);
    r.ex.launch({.grid = 1, .block = 32}, spread_persists{}, r.words(), 12u);
    return double(r.launch_picos());
  };
  const double one_wave = fence_picos("eager", 6);
  EXPECT_NEAR(fence_picos("window", 12) / one_wave, 1.0, 0.05);
  EXPECT_NEAR(fence_picos("window", 6) / one_wave, 2.0, 0.1);
  EXPECT_NEAR(fence_picos("window", 4) / one_wave, 3.0, 0.15);
}

struct store_only {
  void operator()(auto& t, pm::pm_span<std::uint32_t> pm) const {
    if (t.thread_rank() == 0) pm.bind(t)[0] = 1;
  }
};

TEST(TimedPersistency, EveryModelEndsAKernelWithItsPersistsDurable) {
  for (const char* model : {"gpm", "epoch", "sbrp"}) {
    const sim::sim_config c = with(model);
    pm_run r(c);
    r.ex.launch({.grid = 1, .block = 32}, store_only{}, r.words());
    EXPECT_GE(double(r.launch_picos()), persist_path_ps(c)) << model;
  }
}

}  // namespace
