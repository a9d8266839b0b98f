// A scope too narrow along a chain: block 0 stores the data and releases it
// at device scope; block 1 acquires it at block scope (the bug: it should be
// device) and releases on; block 2 acquires that and commits. The report
// names the block-scoped pacq in block 1, the one whose scope fails.
#include <gtest/gtest.h>

#include <array>

#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

struct relay_kernel {
  scope relay_acquire = scope::device;
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words, std::uint64_t* flags) const {
    auto w = words.bind(t);
    switch (t.block_rank()) {
      case 0:
        w[0] = 42;
        t.prel(scope::device, &flags[0], std::uint64_t(1));
        break;
      case 1:
        t.spin_wait([&] { return t.pacq(relay_acquire, &flags[0]) != 0; });
        t.prel(scope::device, &flags[1], std::uint64_t(1));
        break;
      default:
        t.spin_wait([&] { return t.pacq(scope::device, &flags[1]) != 0; });
        w[1] = 1;  // commit
        t.dfence();
    }
  }
};

trace::trace record_relay(const std::filesystem::path& dir, std::uint64_t seed, bool correct) {
  return record(dir, seed, 2, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    std::array<std::uint64_t, 2> flags{};
    ex.launch({dim3(3), dim3(1), 0, "relay"}, relay_kernel{correct ? scope::device : scope::block},
              r.span<std::uint64_t>(), flags.data());
  });
}

check::image_verdict verify_relay(const std::filesystem::path& dir) {
  const words w = image_words(dir);
  if (w[1] == 1 && w[0] != 42) return {false, "committed, but the data is missing"};
  return {true, {}};
}

TEST(RelayChain, CorrectVersionReportsNothingUnderEveryModelAndSeed) {
  const auto correct = [](const std::filesystem::path& d, std::uint64_t seed) { return record_relay(d, seed, true); };
  // Not epoch: there a prel makes nothing durable, so block 0's data needs a
  // persist of its own even when every scope is right.
  expect_no_failure(correct, verify_relay,
                    {check::persist_model::strict, check::persist_model::sbrp, check::persist_model::sbrp_promoted});
}

TEST(RelayChain, TheBlockScopedPacqAlongTheChainIsNamed) {
  for (std::uint64_t seed : {1, 2}) {
    const scratch_dir dir;
    const trace::trace t = record_relay(dir.path(), seed, false);
    const check::check_report r = check_shape(t, dir.path(), check::persist_model::sbrp, verify_relay);
    ASSERT_FALSE(r.failures.empty()) << "seed " << seed;
    const check::check_failure& f = r.failures.front();
    RecordProperty("cause", f.cause);  // the report as a user sees it, in the XML output
    EXPECT_TRUE(f.scoped_persistency_bug);
    EXPECT_NE(f.cause.find("then the prel at"), std::string::npos) << f.cause;  // the relay hop
    // The pacq at fault is block 1's (its line is the spin_wait's in relay_kernel).
    std::uint64_t relay_pacq = trace::no_event;
    for (std::uint64_t i = 0; i < t.events.size(); ++i)
      if (t.events[i].kind == trace::event_kind::pacq && t.events[i].block == 1 && t.events[i].reads_from != trace::no_event)
        relay_pacq = i;
    ASSERT_NE(relay_pacq, trace::no_event);
    EXPECT_NE(f.cause.find("the scope of the pacq at relay_chain_test.cpp:" + std::to_string(t.events[relay_pacq].line)),
              std::string::npos)
        << f.cause;
    EXPECT_EQ(f.cause.find("protocol itself"), std::string::npos) << f.cause;
    const check::check_report promoted = check_shape(t, dir.path(), check::persist_model::sbrp_promoted, verify_relay);
    EXPECT_EQ(promoted.failed_images, 0u) << causes_of(promoted);
  }
}

}  // namespace
