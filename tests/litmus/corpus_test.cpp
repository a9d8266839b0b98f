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
  const lt::Program p = lt::parse_file(GetParam());
  lt::CheckOptions opt;
  opt.system = true;
  const lt::CheckResult r = lt::check_program(p, opt);
  std::set<std::string> keys;
  for (const auto& e : r.expectations) {
    keys.insert(e.expect.key);
    EXPECT_FALSE(e.actual.empty()) << GetParam() << ":" << e.expect.pos.line << ": " << e.expect.key << " not checked";
    EXPECT_EQ(e.actual, e.expect.value) << GetParam() << ":" << e.expect.pos.line << ": " << e.expect.key;
  }
  // Every file states a verdict for every model.
  for (lt::Model m : lt::kAllModels) EXPECT_EQ(keys.count(lt::to_string(m)), 1U) << GetParam() << " lacks " << lt::to_string(m);
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
