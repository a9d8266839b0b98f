// Agents beside a timed launch that persist PM (the transaction log's
// truncator): each persist is a host write-back that takes the NVM's write
// bandwidth, the agent is stepped again only once it is durable, crash
// images follow its bytes, and the launch ends no earlier.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "gpmx/exec/agent.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;

constexpr std::uint64_t written = 64 * 1024;

// First step: fills `written` bytes of the region and persists them. Second
// step: notes the time and lets the kernel end.
class writer_agent final : public agent {
 public:
  writer_agent(pm::region& r, const cpu::executor& ex, std::uint64_t* go) : r_(r), ex_(ex), go_(go) {}
  step_result step() override {
    if (steps_ == 2) return step_result::idle;
    at_[steps_] = ex_.virtual_time();
    if (steps_ == 0) {
      std::memset(r_.data(), 0x5a, written);
      r_.persist(0, written);
    } else {
      std::atomic_ref<std::uint64_t>(*go_).store(1, std::memory_order_release);
    }
    ++steps_;
    return step_result::progressed;
  }
  std::string_view name() const override { return "writer"; }
  vtime at(int step) const { return at_[step]; }

 private:
  pm::region& r_;
  const cpu::executor& ex_;
  std::uint64_t* go_;
  int steps_ = 0;
  vtime at_[2] = {0, 0};
};

struct wait_for_agent {
  void operator()(auto& t, std::uint64_t* go) const {
    t.spin_wait([&] { return t.atomic_load(go, memory_order::acquire) != 0; });
  }
};

struct agent_run {
  scratch_dir dir;
  sim::sim_config cfg;
  sim::gpu_model gpu;
  sim::durability_tracker tracker;
  cpu::executor ex;
  pm::pool pool;
  pm::region region;
  explicit agent_run(const sim::sim_config& c)
      : cfg(c),
        gpu(c),
        tracker(c.l1.line, c.l1.sector),
        ex({.policy = cpu::schedule::timed, .timing = &tracked(gpu, tracker)}),
        pool(pm::pool::create(dir / "p.pool", 4 << 20, {.mode = pm::durability::none})),
        region(pool.create_region("data", written)) {}
  static sim::gpu_model& tracked(sim::gpu_model& g, sim::durability_tracker& t) {
    g.track_durability(&t);
    return g;
  }
  // Whether the NVM held the agent's last byte at t.
  bool durable_at(sim::picos t) const {
    const std::uint64_t last = std::uint64_t(region.data() - pool.base()) + written - 1;
    for (const auto& f : tracker.log().files_at(t))
      if (f.path == dir / "p.pool") return std::uint8_t(f.bytes.at(last)) == 0x5a;
    return false;
  }
};

sim::picos write_time(const sim::sim_config& c, std::uint64_t bytes = written) {  // the NVM's rate alone
  return sim::picos(double(bytes) / (c.nvm.write_gbs * 1e9) * 1e12);
}

// Runs the writer beside a kernel that waits for its second step.
void run_writer(agent_run& run, writer_agent& a, std::uint64_t& go) {
  auto on = run.ex.attach(a);
  run.ex.launch({dim3(1), dim3(32), 0, "wait_for_agent"}, wait_for_agent{}, &go);
}

// Durable at the media: the persist's bytes at the NVM's write rate.
TEST(TimedAgents, APersistTakesTheNvmsWriteBandwidthAndTheAgentWaitsForIt) {
  for (const char* location : {"far", "near"}) {
    sim::sim_config c;
    sim::set_parameter(c, "pm.location", location);
    sim::set_parameter(c, "persist.domain", "media");
    agent_run run(c);
    std::uint64_t go = 0;
    writer_agent a(run.region, run.ex, &go);
    run_writer(run, a, go);
    const sim::memory_stats& m = run.gpu.memory().stats();
    EXPECT_EQ(m.host_pm_write_bytes, written) << location;
    EXPECT_GE(m.nvm_write_bytes, written) << location;
    if (std::string(location) == "near") {
      EXPECT_GE(m.pcie_to_gpu_bytes, written) << "near: across PCIe";
    }
    // The second step waited until the write was durable: at least the
    // NVM's time for the bytes after the first.
    EXPECT_GE(a.at(1), a.at(0) + write_time(c)) << location;
    // Crash images: not yet durable just after the first step, durable by the second.
    EXPECT_FALSE(run.durable_at(a.at(0) + write_time(c) / 2)) << location;
    EXPECT_TRUE(run.durable_at(a.at(1))) << location;
    EXPECT_GE(run.gpu.totals().end, a.at(1)) << location;
  }
}

TEST(TimedAgents, WithEadrOnPmFarTheHostsCachesArePersistent) {
  sim::sim_config c;
  sim::set_parameter(c, "pm.location", "far");
  sim::set_parameter(c, "persist.eadr", "true");
  agent_run run(c);
  std::uint64_t go = 0;
  writer_agent a(run.region, run.ex, &go);
  run_writer(run, a, go);
  EXPECT_EQ(run.gpu.memory().stats().host_pm_write_bytes, written);  // the NVM still takes the bytes
  EXPECT_TRUE(run.durable_at(a.at(0)));
  EXPECT_LT(a.at(1), a.at(0) + write_time(c)) << "no wait for the NVM under eADR";
}

// ADR (the default: the NVM's write queue is persistent): a line is durable
// once the NVM starts writing it, so the last line of the persist waits for
// the ones before it.
TEST(TimedAgents, UnderAdrThePersistsLastLineWaitsForTheLinesBeforeIt) {
  sim::sim_config c;
  agent_run run(c);
  std::uint64_t go = 0;
  writer_agent a(run.region, run.ex, &go);
  run_writer(run, a, go);
  EXPECT_GE(a.at(1), a.at(0) + write_time(c, written - c.l1.line));
  EXPECT_TRUE(run.durable_at(a.at(1)));
}

// Eight scattered lines: persisted one by one, each waits for the one
// before (a fence after each); persisted as one list of lines, their
// write-backs go together and are waited for once.
class lines_agent final : public agent {
 public:
  lines_agent(pm::region& r, const cpu::executor& ex, std::uint64_t* go, bool one_by_one)
      : r_(r), ex_(ex), go_(go), one_by_one_(one_by_one) {}
  step_result step() override {
    if (steps_ == 2) return step_result::idle;
    at_[steps_] = ex_.virtual_time();
    if (steps_ == 0) {
      std::uintptr_t lines[8];
      for (std::uint64_t k = 0; k < 8; ++k) {
        std::byte* p = r_.data() + k * 4096;  // a line in each of eight pages
        std::memset(p, 0x77, persist_line_bytes);
        lines[k] = reinterpret_cast<std::uintptr_t>(p) / persist_line_bytes;
        if (one_by_one_) r_.persist(k * 4096, persist_line_bytes);
      }
      if (!one_by_one_) r_.domain()->persist_lines(lines, 8);
    } else {
      std::atomic_ref<std::uint64_t>(*go_).store(1, std::memory_order_release);
    }
    ++steps_;
    return step_result::progressed;
  }
  std::string_view name() const override { return "lines"; }
  vtime took() const { return at_[1] - at_[0]; }

 private:
  pm::region& r_;
  const cpu::executor& ex_;
  std::uint64_t* go_;
  bool one_by_one_;
  int steps_ = 0;
  vtime at_[2] = {0, 0};
};

TEST(TimedAgents, APersistOfAListOfLinesIsWaitedForOnceNotLineByLine) {
  vtime took[2] = {0, 0};
  sim::sim_config c;
  sim::set_parameter(c, "persist.domain", "media");
  for (const bool one_by_one : {false, true}) {
    agent_run run(c);
    std::uint64_t go = 0;
    lines_agent a(run.region, run.ex, &go, one_by_one);
    {
      auto on = run.ex.attach(a);
      run.ex.launch({dim3(1), dim3(32), 0, "wait_for_agent"}, wait_for_agent{}, &go);
    }
    EXPECT_EQ(run.gpu.memory().stats().host_pm_write_bytes, 8 * persist_line_bytes);
    took[one_by_one ? 1 : 0] = a.took();
  }
  const auto nvm_latency = sim::picos(c.nvm.latency_ns * 1000);
  EXPECT_GE(took[1], 8 * nvm_latency) << "one by one: eight round trips";
  EXPECT_GE(took[0], nvm_latency);
  EXPECT_LT(took[0], 2 * nvm_latency) << "as one list: one round trip";
}

}  // namespace
