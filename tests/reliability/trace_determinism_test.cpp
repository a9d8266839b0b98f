// Host stores are recorded a whole aligned word at a time, so which bytes of
// a word keep their old value (a zero byte in a pool's random uuid) cannot
// change the events a trace holds: a fixed seed gives the same events and
// the same --at positions in every run. And a trace file holds no address
// of the recording process and no random or clock bytes of its pools: the
// same workload, parameters and seed give a byte-identical file.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"
#include "reliability/gpmx_process.hpp"

namespace {
using namespace gpmx;

std::vector<trace::event> host_writes_of(const std::vector<std::uint8_t>& word) {
  std::vector<std::uint8_t> pool(4096, 0);
  trace::recorder rec;
  rec.pool_mapped(pool.data(), pool.size(), "test.pool");
  std::copy(word.begin(), word.end(), pool.begin() + 64);
  rec.host_persist(pool.data() + 64, word.size(), source_loc::current());
  rec.stop_watching();
  std::vector<trace::event> out;
  for (const trace::event& e : rec.take().events)
    if (e.kind == trace::event_kind::pm_write) out.push_back(e);
  return out;
}

TEST(TraceDeterminism, AnUnchangedByteInsideAWordDoesNotSplitTheStore) {
  const auto whole = host_writes_of({1, 2, 3, 4, 5, 6, 7, 8});
  const auto with_zero = host_writes_of({1, 0, 3, 4, 5, 6, 7, 8});  // byte 1 keeps its old value
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(with_zero.size(), whole.size());
  EXPECT_EQ(with_zero[0].bytes, 8u);
}

// Both traces are written for the same data directory (the pools' paths are
// part of the trace); each run replaces the workload's files.
void expect_byte_identical_traces(const std::string& workload, const std::string& style) {
  scratch_dir d;
  for (const char* out : {"first.trace", "second.trace"}) {
    const auto r = test::run_gpmx({"trace", workload, "--style", style, "--seed", "5", "-o", out}, d.path());
    ASSERT_EQ(r.status, 0) << r.output;
  }
  const std::string first = test::read_text(d / "first.trace"), second = test::read_text(d / "second.trace");
  ASSERT_GT(first.size(), 32u);
  EXPECT_TRUE(first == second) << workload << ": the two traces differ (" << first.size() << " and " << second.size()
                               << " bytes)";
}

TEST(TraceDeterminism, TheSameSeedGivesAByteIdenticalTraceFile) {
  expect_byte_identical_traces("reduction", "sbrp");
  expect_byte_identical_traces("gpkvs", "epoch");
}

}  // namespace
