// A torn store: each thread writes a 16-byte record (a sequence number and
// its payload) with one store and persists it; recovery trusts a record
// whose sequence number is set. The record spans two 8-byte granules and
// may persist half. The correct version persists the payload before it
// writes the sequence number.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

constexpr unsigned threads = 4;

struct record16 {
  std::uint64_t seq;
  std::uint64_t payload;
};

struct record_kernel {
  bool payload_first = true;
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words, pm::pm_span<record16> records) const {
    const std::uint64_t i = t.global_id();
    if (payload_first) {
      auto w = words.bind(t);
      w[2 * i + 1] = 7 * (i + 1);
      t.gpm_persist();
      w[2 * i] = i + 1;
    } else {
      records.bind(t)[i] = record16{i + 1, 7 * (i + 1)};
    }
    t.gpm_persist();
  }
};

trace::trace record_records(const std::filesystem::path& dir, std::uint64_t seed, bool correct) {
  return record(dir, seed, 2 * threads, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    ex.launch({dim3(1), dim3(threads), 0, "records"}, record_kernel{correct}, r.span<std::uint64_t>(),
              r.span<record16>());
  });
}

check::image_verdict verify_records(const std::filesystem::path& dir) {
  const words w = image_words(dir);
  for (unsigned i = 0; i < threads; ++i)
    if (w[2 * i] != 0 && w[2 * i + 1] != 7 * w[2 * i])
      return {false, fmt::format("record {} has sequence {} but payload {}", i, w[2 * i], w[2 * i + 1])};
  return {true, {}};
}

TEST(TornStore, CorrectVersionReportsNothingUnderEveryModelAndSeed) {
  const auto correct = [](const std::filesystem::path& d, std::uint64_t seed) { return record_records(d, seed, true); };
  expect_no_failure(correct, verify_records);
}

TEST(TornStore, IsCalledTornAndIsOneCause) {
  for (check::persist_model m : {check::persist_model::epoch, check::persist_model::sbrp}) {
    const scratch_dir dir;
    const check::check_report r = check_shape(record_records(dir.path(), 1, false), dir.path(), m, verify_records);
    ASSERT_EQ(r.failures.size(), 1u) << causes_of(r);
    const check::check_failure& f = r.failures.front();
    RecordProperty("cause", f.cause);  // the report as a user sees it, in the XML output
    EXPECT_NE(f.cause.find("tore between its 8-byte granules at +0 and +8"), std::string::npos) << f.cause;
    EXPECT_NE(f.cause.find("torn_store_test.cpp"), std::string::npos) << f.cause;
    EXPECT_GT(f.images, 1u);  // every record's tear, one cause
  }
}

}  // namespace
