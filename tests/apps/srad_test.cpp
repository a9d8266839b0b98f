// SRAD: iterations against the sequential host reference (bitwise), both
// styles, resuming after a partly written iteration, verification catching a
// corrupted pixel or noise value, and parameter checks.
#include "srad/srad.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "common/registry.hpp"
#include "common/run_meta.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "workload_harness.hpp"
#include "print_style.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

bool same_bits(std::span<const float> a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), b.size() * sizeof(float)) == 0;
}

params with(params p, const char* name, std::uint64_t v) {
  p[name] = v;
  return p;
}

class SradStyles : public testing::TestWithParam<style> {};

// 13 x 21: edges on every side and a last thread with fewer than 16 pixels.
TEST_P(SradStyles, EachIterationEqualsTheHostReferenceBitwise) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  auto s = srad::state::create(dir.path(), 13, 21, 7, pm::durability::none);
  for (std::uint32_t k = 1; k <= 4; ++k) {
    ASSERT_EQ(s.advance(ex, k, 0.5f, GetParam()), 1u);
    const srad::reference ref = srad::run_reference(13, 21, 7, k, 0.5f);
    ASSERT_TRUE(same_bits(s.image_after(k), ref.image)) << "after iteration " << k;
    ASSERT_EQ(std::memcmp(s.noise().data(), ref.noise.data(), ref.noise.size() * sizeof(srad::noise_record)), 0);
    EXPECT_EQ(s.where().iterations_done, k);
    EXPECT_FALSE(s.where().coefficients_ready);
  }
  // The image did change: diffusion is not the identity.
  EXPECT_FALSE(same_bits(s.image_after(4), srad::generate_image(13, 21, 7)));
}

TEST_P(SradStyles, DeterministicScheduleGivesTheSameBits) {
  scratch_dir dir;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 3});
  auto s = srad::state::create(dir.path(), 40, 24, 2, pm::durability::none);
  s.advance(ex, 3, 0.3f, GetParam());
  EXPECT_TRUE(same_bits(s.image_after(3), srad::run_reference(40, 24, 2, 3, 0.3f).image));
}

// Iteration 2 writes buffer 1: garbage there (a partly written iteration) is
// simply overwritten when the run resumes from 2 iterations done.
TEST_P(SradStyles, ResumingOverwritesAPartlyWrittenIteration) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  auto s = srad::state::create(dir.path(), 32, 32, 5, pm::durability::none);
  s.advance(ex, 2, 0.5f, GetParam());
  float* next = s.image_data() + 32 * 32;  // buffer 1, iteration 2's destination
  for (int i = 0; i < 100; ++i) next[i * 7] = -1.0f;
  EXPECT_EQ(s.advance(ex, 5, 0.5f, GetParam()), 3u);
  EXPECT_TRUE(same_bits(s.image_after(5), srad::run_reference(32, 32, 5, 5, 0.5f).image));
}

TEST_P(SradStyles, WorkloadRunVerifiesAndCorruptionIsCaught) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("srad");
  const env e{ex, dir.path(), pm::durability::none};
  const params p = resolve_params(w, w.small_params());
  const run_report r = w.run(e, p, GetParam());
  EXPECT_EQ(r.batches, p.at("iterations"));
  EXPECT_EQ(r.operations, p.at("rows") * p.at("cols") * p.at("iterations"));
  EXPECT_GT(r.bytes_persisted, 0u);
  verify_report v = w.verify(e);
  ASSERT_TRUE(v.ok) << v.detail;
  {
    auto s = srad::state::open(dir.path(), pm::durability::none);
    float* px = s.image_data() + (p.at("iterations") % 2) * p.at("rows") * p.at("cols") + 37;
    *px = std::nextafter(*px, 1e9f);  // one ulp off
  }
  v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("pixel (2, 5)"), std::string::npos) << v.detail;
}

INSTANTIATE_TEST_SUITE_P(BothStyles, SradStyles, testing::Values(style::epoch, style::sbrp),
                         [](const auto& i) { return std::string(to_string(i.param)); });

TEST(Srad, CorruptedNoiseValueIsCaught) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("srad");
  const env e{ex, dir.path(), pm::durability::none};
  w.run(e, resolve_params(w, w.small_params()), style::sbrp);
  {
    auto s = srad::state::open(dir.path(), pm::durability::none);
    auto* rec = const_cast<srad::noise_record*>(s.noise().data()) + 3;
    rec->c = rec->c * 0.5f + 0.25f;
  }
  const verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("noise value c of pixel (0, 3)"), std::string::npos) << v.detail;
}

// An unfinished computation is refused by verify until recover finishes it.
TEST(Srad, VerifyAsksForRecoveryUntilRecoverFinishes) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("srad");
  const env e{ex, dir.path(), pm::durability::none};
  const params p = resolve_params(w, {{"rows", 20}, {"cols", 30}, {"iterations", 5}});
  {
    auto s = srad::state::create(dir.path(), 20, 30, p.at("seed"), pm::durability::none);
    write_meta(s.pool(), "srad", style::epoch, p);
    s.advance(ex, 2, 0.5f, style::epoch);
  }
  verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("recover first"), std::string::npos) << v.detail;
  const recover_report r = w.recover(e);
  EXPECT_TRUE(r.repaired);
  EXPECT_NE(r.what.find("resumed at iteration 2"), std::string::npos) << r.what;
  v = w.verify(e);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_FALSE(w.recover(e).repaired);  // recovering again changes nothing
}

TEST(Srad, BadParametersAreRejectedByName) {
  scratch_dir dir;
  cpu::executor ex({.workers = 1});
  workload& w = find_workload("srad");
  const env e{ex, dir.path(), pm::durability::none};
  const params small = resolve_params(w, w.small_params());
  for (const auto& [name, value] : std::vector<std::pair<const char*, std::uint64_t>>{
           {"rows", 0}, {"cols", 70000}, {"iterations", 0}, {"lambda_percent", 0}, {"lambda_percent", 101}}) {
    try {
      w.run(e, with(small, name, value), style::epoch);
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const config_error& err) {
      EXPECT_NE(std::string(err.what()).find(name), std::string::npos) << err.what();
    }
  }
  EXPECT_THROW(resolve_params(w, {{"radius", 3}}), config_error);
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(SradSeededBug, EarlyCoefficientsCommitRunVerifies) {
  test::expect_seeded_bug_run_verifies("srad", "early-coefficients-commit");
}

}  // namespace
