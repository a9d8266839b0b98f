// The prefix-sum workload (GPM Figure 8): results against a sequential prefix
// sum in both styles, recovery that skips the blocks whose last element is
// persisted, a check that catches corruption, parameter errors.
#include "prefix_sum/prefix_sum.hpp"

#include <gtest/gtest.h>

#include "gpmx/exec/errors.hpp"
#include "native_test_util.hpp"
#include "workload_harness.hpp"

namespace {
using namespace gpmx;
using gpmx::test::native_run;
namespace native = gpmx::apps::native;
namespace ps = gpmx::apps::prefix_sum;

const apps::params shape_params{{"elements", 1 << 13}, {"threads", 16}, {"per_thread", 64}, {"seed", 7}};
const native::chunked_shape shape{1 << 13, 16, 64, 7};  // 8 blocks of 1024

TEST(PrefixSum, BothStylesGiveTheSequentialPrefixSum) {
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("prefix-sum", shape_params);
    const apps::run_report rep = r.run(s);
    EXPECT_EQ(rep.operations, shape.elements);
    EXPECT_EQ(rep.batches, 2u);
    const apps::verify_report v = r.verify();
    ASSERT_TRUE(v.ok) << v.detail;
    const ps::reference want = ps::reference_sums(shape);
    r.poke(ps::pool_file, "partial", [&](std::span<std::uint64_t> p) {
      EXPECT_TRUE(std::equal(want.partial.begin(), want.partial.end(), p.begin()));
    });
    r.poke(ps::pool_file, "output", [&](std::span<std::uint64_t> o) {
      EXPECT_TRUE(std::equal(want.output.begin(), want.output.end(), o.begin()));
    });
  }
}

TEST(PrefixSum, DeterministicScheduleGivesTheSamePrefixSum) {
  native_run r("prefix-sum", shape_params, {.policy = cpu::schedule::deterministic, .seed = 2});
  r.run(apps::style::sbrp);
  EXPECT_TRUE(r.verify().ok);
}

void set_stage(native_run& r, ps::stage s) {
  r.poke(ps::pool_file, "stage", [s](std::span<std::uint64_t> w) { w[0] = std::uint64_t(s); });
}
// Block b of region as a crash in its pass leaves it: the last element not
// persisted, the others anything.
void unfinish_block(native_run& r, const char* region, std::uint64_t b) {
  r.poke(ps::pool_file, region, [b](std::span<std::uint64_t> v) {
    for (std::uint64_t i = b * shape.span(); i < (b + 1) * shape.span(); ++i) v[i] = 777;
    v[(b + 1) * shape.span() - 1] = native::empty;
  });
}

TEST(PrefixSum, RecoverySkipsBlocksWhoseLastPartialSumIsPersisted) {
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    native_run r("prefix-sum", shape_params);
    r.run(s);
    // A crash in the partial pass: block 3 unfinished; the final pass never ran.
    set_stage(r, ps::stage::partial_pass);
    unfinish_block(r, "partial", 3);
    r.poke(ps::pool_file, "output", [](std::span<std::uint64_t> o) { std::fill(o.begin(), o.end(), 0); });
    EXPECT_FALSE(r.verify().ok);
    apps::recover_report rec;
    std::uint64_t stores = native_run::crash_points_of([&] { rec = r.recover(); });
    EXPECT_NE(rec.what.find("7 of 8 blocks were persisted"), std::string::npos) << rec.what;
    // Block 3's partial sums, every final sum, and two stage words.
    EXPECT_EQ(stores, shape.span() + shape.elements + 2);
    apps::verify_report v = r.verify();
    EXPECT_TRUE(v.ok) << v.detail;

    // A crash in the final pass: blocks 0 and 6 unfinished.
    set_stage(r, ps::stage::final_pass);
    unfinish_block(r, "output", 0);
    unfinish_block(r, "output", 6);
    stores = native_run::crash_points_of([&] { rec = r.recover(); });
    EXPECT_NE(rec.what.find("final pass: 6 of 8 blocks"), std::string::npos) << rec.what;
    EXPECT_EQ(stores, 2 * shape.span() + 1);
    v = r.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_FALSE(r.recover().repaired);
  }
}

TEST(PrefixSum, VerifyCatchesCorruptedSumsAndUnfinishedRuns) {
  native_run r("prefix-sum", shape_params);
  r.run(apps::style::epoch);
  r.poke(ps::pool_file, "output", [](std::span<std::uint64_t> o) { o[2000] += 1; });
  apps::verify_report v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("prefix sum 2000 (block 1)"), std::string::npos) << v.detail;
  r.poke(ps::pool_file, "output", [](std::span<std::uint64_t> o) { o[2000] -= 1; });
  r.poke(ps::pool_file, "partial", [](std::span<std::uint64_t> p) { p[10] = 0; });
  v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("partial sum 10 (block 0)"), std::string::npos) << v.detail;
  set_stage(r, ps::stage::final_pass);
  v = r.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("final pass has not finished: recover first"), std::string::npos) << v.detail;
}

TEST(PrefixSum, RejectsBadParameters) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"threads", 0}, {"per_thread", 1u << 21}, {"elements", 1000}}) {
    apps::params p = shape_params;
    p[name] = value;
    native_run r("prefix-sum", p);
    try {
      r.run(apps::style::epoch);
      ADD_FAILURE() << "accepted " << name << "=" << value;
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find(name + "=" + std::to_string(value)), std::string::npos) << e.what();
    }
  }
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(PrefixSumSeededBug, TotalBeforeJoinRunVerifies) {
  test::expect_seeded_bug_run_verifies("prefix-sum", "total-before-join");
}

}  // namespace
