// DNN: the loss falls and the network learns the image set; a resumed run
// continues the same loss curve (bitwise: every sum has a fixed order);
// both styles; corrupted weights and loss history are caught; parameters.
#include "dnn/dnn.hpp"

#include "checkpointed_checks.hpp"
#include "workload_harness.hpp"
#include "common/crash_run.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

TEST(Dnn, LossFallsAndTheNetworkLearns) {
  dnn::training t;
  t.images = 512;
  t.batch = 32;
  t.iterations = 150;
  dnn::dnn_app a(t);
  cpu::executor ex({.workers = 2});
  const double before = a.accuracy(ex);
  for (std::uint64_t i = 0; i < t.iterations; ++i) a.step(ex, i);
  const auto& h = a.dram_history();
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) first += double(h[i]), last += double(h[h.size() - 1 - i]);
  EXPECT_LT(last, 0.5 * first) << "mean loss of the first 10 steps " << first / 10 << ", last 10 " << last / 10;
  EXPECT_GT(a.accuracy(ex), 0.9) << "accuracy before training " << before;
}

TEST(Dnn, RunVerifiesInBothStyles) { test::expect_verifies_in_both_styles("dnn"); }

TEST(Dnn, ResumeContinuesTheSameLossCurve) {
  // A run killed mid-way (in a child), recovered, verified: the loss history
  // in PM must equal the uninterrupted run's bitwise (verify checks it).
  for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
    scratch_dir dir;
    auto& w = test::checkpointed("dnn");
    const params p = resolve_params(w, {{"images", 128}, {"batch", 16}, {"iterations", 40}, {"interval", 7}});
    auto work = [&](bool recover) {
      cpu::executor ex({.workers = 2});
      const env e{ex, dir.path(), pm::durability::msync};
      if (recover) (void)w.recover(e);
      else (void)w.run(e, p, s);
    };
    const child_outcome whole = run_in_child(0, [&] { work(false); });
    ASSERT_FALSE(whole.failed) << whole.error;
    const child_outcome killed = run_in_child(whole.points / 2, [&] { work(false); });
    ASSERT_TRUE(killed.killed);
    const child_outcome rec = run_in_child(0, [&] { work(true); });
    ASSERT_FALSE(rec.failed) << rec.error;
    cpu::executor ex({.workers = 2});
    const verify_report v = w.verify({ex, dir.path(), pm::durability::msync});
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_NE(v.detail.find("40 losses"), std::string::npos) << v.detail;
  }
}

TEST(Dnn, VerifyCatchesCorruptedWeights) { test::expect_corruption_caught("dnn", 2, 11, "fc1.weight"); }

TEST(Dnn, VerifyCatchesACorruptedLossHistory) {
  scratch_dir dir;
  ASSERT_TRUE(test::run_then_verify("dnn", dir.path(), apps::style::sbrp).ok);
  {
    auto pool = pm::pool::open(dir / "dnn.pool", pm::durability::msync);
    pool.find("own").as<float>()[16 + 3] += 0.5f;  // history[3], after the 16 partial slots
  }
  cpu::executor ex({.workers = 2});
  const verify_report v = test::checkpointed("dnn").verify({ex, dir.path(), pm::durability::msync});
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("loss history[3]"), std::string::npos) << v.detail;
}

TEST(Dnn, BadParametersAreRejected) {
  test::expect_rejected("dnn", "batch", 0);
  test::expect_rejected("dnn", "lr_milli", 0);
  test::expect_rejected("dnn", "images", 0);
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(DnnSeededBug, FlipBeforeCopyRunVerifies) { test::expect_seeded_bug_run_verifies("dnn", "flip-before-copy"); }

}  // namespace
