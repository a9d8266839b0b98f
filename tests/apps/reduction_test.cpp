// The reduction workload (SBRP Figure 3): results against the sequential
// reference in both styles, recovery that recomputes only what was not
// persisted, a check that catches corruption, parameter errors.
#include "reduction/reduction.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"
#include "native_test_util.hpp"
#include "workload_harness.hpp"

namespace {
using namespace gpmx;
using gpmx::test::native_run;
namespace native = gpmx::apps::native;

const apps::params shape_params{{"elements", 1 << 14}, {"threads", 32}, {"per_thread", 16}, {"seed", 3}};
const native::chunked_shape shape{1 << 14, 32, 16, 3};

TEST(Reduction, BothStylesGiveTheSequentialSumAndPartialSums) {
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("reduction", shape_params);
    const apps::run_report rep = r.run(s);
    EXPECT_EQ(rep.operations, shape.elements);
    EXPECT_EQ(rep.unit, "elements");
    const apps::verify_report v = r.verify();
    ASSERT_TRUE(v.ok) << v.detail;
    EXPECT_EQ(v.checked, std::uint64_t(shape.blocks()) * shape.threads + 1);
    r.poke(apps::reduction::pool_file, "total",
           [](std::span<std::uint64_t> t) { EXPECT_EQ(t[0], apps::reduction::reference_total(shape)); });
    r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> p) {
      const auto want = apps::reduction::reference_partials(shape);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), p.begin()));
    });
  }
}

TEST(Reduction, DeterministicScheduleGivesTheSameSum) {
  native_run r("reduction", shape_params, {.policy = cpu::schedule::deterministic, .seed = 4});
  r.run(apps::style::sbrp);
  EXPECT_TRUE(r.verify().ok);
}

TEST(Reduction, RecoveryRecomputesOnlyWhatWasNotPersisted) {
  native_run r("reduction", shape_params);
  r.run(apps::style::sbrp);
  // As a crash may leave it: block 1 and the total not persisted, the others whole.
  r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> p) {
    for (std::uint32_t t = 0; t < shape.threads; ++t) p[shape.threads + t] = native::empty;
  });
  r.poke(apps::reduction::pool_file, "total", [](std::span<std::uint64_t> t) { t[0] = native::empty; });
  const apps::verify_report before = r.verify();
  EXPECT_FALSE(before.ok);
  EXPECT_NE(before.detail.find("recover first"), std::string::npos) << before.detail;
  apps::recover_report rec;
  const std::uint64_t stores = native_run::crash_points_of([&] { rec = r.recover(); });
  EXPECT_TRUE(rec.repaired);
  EXPECT_EQ(stores, shape.threads + 1u) << "only block 1's slots and the total are written";
  const std::string counts = std::to_string((shape.blocks() - 1) * shape.threads) + " of " +
                             std::to_string(shape.blocks() * shape.threads);
  EXPECT_NE(rec.what.find(counts), std::string::npos) << rec.what;
  const apps::verify_report after = r.verify();
  EXPECT_TRUE(after.ok) << after.detail;
  EXPECT_FALSE(r.recover().repaired) << "recovering a finished sum does nothing";
}

// SBRP's reduction keeps its input in device memory: with input_in_device
// the kernel reads a copy made there (no PM load of an input element), and
// recovery, which finds the input only in PM, copies it again.
TEST(Reduction, WithTheInputInDeviceMemoryTheKernelReadsNoInputFromPM) {
  apps::params p = shape_params;
  p["input_in_device"] = 1;
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("reduction", p);
    r.run(s);
    const apps::verify_report v = r.verify();
    ASSERT_TRUE(v.ok) << v.detail;
    r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> slots) {
      for (std::uint32_t t = 0; t < shape.threads; ++t) slots[shape.threads + t] = native::empty;
    });
    r.poke(apps::reduction::pool_file, "total", [](std::span<std::uint64_t> t) { t[0] = native::empty; });
    EXPECT_TRUE(r.recover().repaired);
    const apps::verify_report after = r.verify();
    EXPECT_TRUE(after.ok) << after.detail;
  }
  auto pm_reads = [&](std::uint64_t in_device) {
    apps::workload& w = apps::find_workload("reduction");
    apps::params q = p;
    q["input_in_device"] = in_device;
    scratch_dir dir;
    trace::recorder rec;
    {
      cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
      w.run({ex, dir.path(), pm::durability::none}, apps::resolve_params(w, q), apps::style::sbrp);
    }
    const trace::trace t = rec.take();
    return std::count_if(t.events.begin(), t.events.end(),
                         [](const trace::event& e) { return e.kind == trace::event_kind::pm_read; });
  };
  EXPECT_EQ(pm_reads(0) - pm_reads(1), std::int64_t(shape.elements));
}

// Interleaved, each slot sums elements a grid apart: the partial sums differ
// from the consecutive layout's, the total does not, and recovery keeps the
// layout the run recorded.
TEST(Reduction, InterleavedInputGivesItsOwnPartialSumsAndTheSameTotal) {
  apps::params p = shape_params;
  p["interleaved"] = 1;
  p["input_in_device"] = 1;
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("reduction", p);
    r.run(s);
    ASSERT_TRUE(r.verify().ok) << r.verify().detail;
    r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> slots) {
      const auto want = apps::reduction::reference_partials(shape, true);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), slots.begin()));
      EXPECT_NE(want, apps::reduction::reference_partials(shape, false));
      for (std::uint32_t t = 0; t < shape.threads; ++t) slots[t] = native::empty;
    });
    r.poke(apps::reduction::pool_file, "total", [](std::span<std::uint64_t> t) {
      EXPECT_EQ(t[0], apps::reduction::reference_total(shape));
      t[0] = native::empty;
    });
    EXPECT_TRUE(r.recover().repaired);
    const apps::verify_report after = r.verify();
    EXPECT_TRUE(after.ok) << after.detail;
  }
}

TEST(Reduction, VerifyCatchesACorruptedPartialSumAndTotal) {
  native_run r("reduction", shape_params);
  r.run(apps::style::epoch);
  r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> p) { p[shape.threads + 5] += 1; });
  apps::verify_report v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("block 1 thread 5"), std::string::npos) << v.detail;
  r.poke(apps::reduction::pool_file, "partial", [](std::span<std::uint64_t> p) { p[shape.threads + 5] -= 1; });
  r.poke(apps::reduction::pool_file, "total", [](std::span<std::uint64_t> t) { t[0] ^= 1u << 20; });
  v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("total is"), std::string::npos) << v.detail;
}

void expect_rejected(const apps::params& bad, const std::string& names) {
  apps::params p = shape_params;
  for (const auto& [k, v] : bad) p[k] = v;
  native_run r("reduction", p);
  try {
    r.run(apps::style::epoch);
    ADD_FAILURE() << "accepted " << names;
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(Reduction, RejectsBadParameters) {
  expect_rejected({{"threads", 48}}, "threads=48");
  expect_rejected({{"threads", 2048}}, "threads=2048");
  expect_rejected({{"per_thread", 0}}, "per_thread=0");
  expect_rejected({{"elements", 1000}}, "elements=1000");
  expect_rejected({{"elements", 0}}, "elements=0");
  expect_rejected({{"input_in_device", 2}}, "input_in_device=2");
  expect_rejected({{"interleaved", 3}}, "interleaved=3");
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(ReductionSeededBug, BlockScopeReleaseRunVerifies) {
  test::expect_seeded_bug_run_verifies("reduction", "block-scope-release");
}

}  // namespace
