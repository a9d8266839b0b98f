// Runs every file of the corpus and asserts every verdict it expects.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gpmx/litmus/check.hpp"
#include "gpmx/litmus/parser.hpp"

namespace lt = gpmx::litmus;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(GPMX_LITMUS_DIR))
    if (e.path().extension() == ".litmus") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, ExpectedVerdicts) {
  const lt::program p = lt::parse_file(GetParam());
  lt::check_options opt;
  opt.system = true;
  const lt::check_result r = lt::check_program(p, opt);
  std::set<std::string> keys;
  for (const auto& e : r.expectations) {
    keys.insert(e.expect.key);
    EXPECT_FALSE(e.actual.empty()) << GetParam() << ":" << e.expect.pos.line << ": " << e.expect.key << " not checked";
    EXPECT_EQ(e.actual, e.expect.expected) << GetParam() << ":" << e.expect.pos.line << ": " << e.expect.key;
  }
  // Every file states a verdict for every model.
  for (lt::consistency_model m : lt::all_models) EXPECT_EQ(keys.count(lt::to_string(m)), 1U) << GetParam() << " lacks " << lt::to_string(m);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = fs::path(info.param).stem().string();
  for (char& c : s)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Litmus, Corpus, ::testing::ValuesIn(corpus_files()), test_name);

TEST(CorpusShape, HasTheThesisUseCases) {
  const auto files = corpus_files();
  for (const char* name : {"work_queue", "event_counter", "flags", "fig3_2a", "fig3_2b", "seqlock", "split_counter",
                           "reference_counter", "multiple_locks", "hrf_local_cross_cu", "hrf_chain_two_scopes"}) {
    const bool found = std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      return fs::path(f).stem() == name;
    });
    EXPECT_TRUE(found) << name;
  }
}

}  // namespace

namespace {

// The partial-order reduction must not change any verdict or outcome: compare
// with plain enumeration of every interleaving on the corpus files small
// enough for it.
TEST(CorpusReduction, SameVerdictsAsEveryInterleaving) {
  int compared = 0;
  for (const auto& f : corpus_files()) {
    const lt::program p = lt::parse_file(f);
    lt::check_options full;
    full.reduce = false;
    full.system = false;
    lt::check_result a, b;
    try {
      lt::check_options quick;
      a = lt::check_program(p, quick);
      if (a.sc.executions > 2000 || (a.pq && a.pq->executions > 2000)) continue;  // keep the test fast
      b = lt::check_program(p, full);
    } catch (const std::exception& e) {
      ADD_FAILURE() << f << ": " << e.what();
      continue;
    }
    ++compared;
    ASSERT_EQ(a.models.size(), b.models.size());
    for (std::size_t m = 0; m < a.models.size(); ++m)
      EXPECT_EQ(a.models[m].verdict(), b.models[m].verdict()) << f << " " << lt::to_string(a.models[m].model);
    EXPECT_EQ(a.cond, b.cond) << f;
    EXPECT_LE(a.sc.executions, b.sc.executions) << f;
  }
  EXPECT_GT(compared, 40);
}

}  // namespace
