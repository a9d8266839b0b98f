// A missing host persist: the host writes a parameter into the pool and
// launches a kernel that derives its results from it and persists them,
// without persisting the parameter first. The report names the host store
// (its pool offset and the launch it was found at) and the missing persist.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

constexpr unsigned threads = 4;
constexpr std::size_t scale_word = 0, done_word = threads + 1;

struct scale_kernel {
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words) const {
    auto w = words.bind(t);
    const std::uint64_t scale = w[scale_word];
    w[1 + t.thread_rank()] = scale * (t.thread_rank() + 1);
    t.gpm_persist();
    t.syncthreads();
    if (t.thread_rank() == 0) {
      w[done_word] = 1;
      t.gpm_persist();
    }
  }
};

trace::trace record_scale(const std::filesystem::path& dir, std::uint64_t seed, bool correct) {
  return record(dir, seed, threads + 2, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    r.as<std::uint64_t>()[scale_word] = 3;
    if (correct) r.persist(0, 8);
    ex.launch({dim3(1), dim3(threads), 0, "scale"}, scale_kernel{}, r.span<std::uint64_t>());
  });
}

check::image_verdict verify_scale(const std::filesystem::path& dir) {
  const words w = image_words(dir);
  for (unsigned i = 0; i < threads; ++i)
    if (w[1 + i] != 0 && w[1 + i] != w[scale_word] * (i + 1))
      return {false, fmt::format("result {} is {} but the scale is {}", i, w[1 + i], w[scale_word])};
  return {true, {}};
}

TEST(HostPersist, CorrectVersionReportsNothingUnderEveryModelAndSeed) {
  const auto correct = [](const std::filesystem::path& d, std::uint64_t seed) { return record_scale(d, seed, true); };
  expect_no_failure(correct, verify_scale);
}

TEST(HostPersist, TheUnpersistedHostStoreIsNamedWithTheMissingPersist) {
  for (check::persist_model m : {check::persist_model::epoch, check::persist_model::sbrp}) {
    const scratch_dir dir;
    const check::check_report r = check_shape(record_scale(dir.path(), 1, false), dir.path(), m, verify_scale);
    ASSERT_FALSE(r.failures.empty()) << check::to_string(m);
    const check::check_failure& f = r.failures.front();
    RecordProperty("cause", f.cause);  // the report as a user sees it, in the XML output
    EXPECT_NE(f.cause.find("the host store to shape.pool+0x"), std::string::npos) << f.cause;
    EXPECT_NE(f.cause.find("found at the launch of 'scale' at host_persist_test.cpp:"), std::string::npos) << f.cause;
    EXPECT_NE(f.cause.find("' was launched at host_persist_test.cpp:"), std::string::npos) << f.cause;
    EXPECT_NE(f.cause.find("a pool::persist or region::persist of the host's store before that launch is missing"),
              std::string::npos)
        << f.cause;
    EXPECT_EQ(f.cause.find("too early"), std::string::npos) << f.cause;
    EXPECT_EQ(f.cause.find("the store at a host"), std::string::npos) << f.cause;
  }
}

}  // namespace
