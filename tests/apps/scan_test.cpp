// The scan workload: results against a sequential scan in both styles,
// recovery that resumes at the persisted pass marker, a check that catches
// corruption, parameter errors.
#include "scan/scan.hpp"

#include <gtest/gtest.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/errors.hpp"
#include "native_test_util.hpp"
#include "workload_harness.hpp"
#include "scan/scan_kernel.hpp"

namespace {
using namespace gpmx;
using gpmx::test::native_run;
namespace native = gpmx::apps::native;

const apps::params shape_params{{"elements", 1 << 13}, {"threads", 16}, {"per_thread", 32}, {"seed", 5}};
const native::chunked_shape shape{1 << 13, 16, 32, 5};
const std::uint32_t passes = apps::scan::passes_for(shape.threads);  // 5
// The buffer the last pass writes, and the one before it.
const char* last_buffer = (passes - 1) % 2 == 0 ? "ping" : "pong";

TEST(Scan, BothStylesGiveTheSequentialScan) {
  ASSERT_EQ(passes, 5u);
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("scan", shape_params);
    EXPECT_EQ(r.run(s).operations, shape.elements);
    const apps::verify_report v = r.verify();
    ASSERT_TRUE(v.ok) << v.detail;
    EXPECT_EQ(v.checked, shape.elements);
    r.poke(apps::scan::pool_file, last_buffer, [](std::span<std::uint64_t> out) {
      const auto want = apps::scan::reference_scan(shape);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
    });
    r.poke(apps::scan::pool_file, "progress", [](std::span<std::uint64_t> p) {
      for (std::uint64_t m : p) EXPECT_EQ(m, passes);
    });
  }
}

TEST(Scan, DeterministicScheduleGivesTheSameScan) {
  native_run r("scan", shape_params, {.policy = cpu::schedule::deterministic, .seed = 11});
  r.run(apps::style::sbrp);
  EXPECT_TRUE(r.verify().ok);
}

TEST(Scan, RecoveryResumesAtThePersistedPassMarker) {
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("scan", shape_params);
    r.run(s);
    // As a crash during array 2's last pass leaves it: the marker says one
    // pass less, the last pass's buffer half written (here: garbage).
    r.poke(apps::scan::pool_file, "progress", [](std::span<std::uint64_t> p) { p[2] = passes - 1; });
    r.poke(apps::scan::pool_file, last_buffer, [](std::span<std::uint64_t> out) {
      for (std::uint64_t i = 2 * shape.span(); i < 3 * shape.span(); ++i) out[i] = 12345;
    });
    const apps::verify_report before = r.verify();
    EXPECT_FALSE(before.ok);
    EXPECT_NE(before.detail.find("array 2 has completed 4 of 5 passes: recover first"), std::string::npos)
        << before.detail;
    apps::recover_report rec;
    const std::uint64_t stores = native_run::crash_points_of([&] { rec = r.recover(); });
    EXPECT_TRUE(rec.repaired);
    EXPECT_EQ(stores, shape.span() + 1) << "only array 2's last pass and its marker are written";
    const apps::verify_report after = r.verify();
    EXPECT_TRUE(after.ok) << after.detail;
    EXPECT_FALSE(r.recover().repaired);
  }
}

TEST(Scan, VerifyCatchesACorruptedElementAndMarker) {
  native_run r("scan", shape_params);
  r.run(apps::style::sbrp);
  r.poke(apps::scan::pool_file, last_buffer, [](std::span<std::uint64_t> out) { out[shape.span() + 7] += 2; });
  apps::verify_report v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("element 7 of array 1"), std::string::npos) << v.detail;
  // A marker a run can leave (fewer passes than it made) fails verify...
  r.poke(apps::scan::pool_file, "progress", [](std::span<std::uint64_t> p) { p[3] -= 1; });
  v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("array 3 has completed 4 of 5 passes"), std::string::npos) << v.detail;
  // ...and one no run can leave is a corrupt file (docs/reliability.md).
  r.poke(apps::scan::pool_file, "progress", [](std::span<std::uint64_t> p) { p[3] = 99; });
  EXPECT_THROW(r.verify(), pm::pm_error);
}

TEST(Scan, RejectsBadParameters) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"threads", 12}, {"per_thread", 0}, {"elements", 100}}) {
    apps::params p = shape_params;
    p[name] = value;
    native_run r("scan", p);
    try {
      r.run(apps::style::sbrp);
      ADD_FAILURE() << "accepted " << name << "=" << value;
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find(name + "=" + std::to_string(value)), std::string::npos) << e.what();
    }
  }
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(ScanSeededBug, PlainAcquireJoinRunVerifies) {
  test::expect_seeded_bug_run_verifies("scan", "plain-acquire-join");
}

}  // namespace
