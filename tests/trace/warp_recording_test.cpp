// Warp collectives in the trace: every lane's arrival is one event with the
// operation and the mask of participating lanes; they survive the file and
// the dump; a file of the version before them still reads, and a kind it
// could not hold is refused there.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/trace/dump.hpp"
#include "gpmx/trace/recorder.hpp"
#include "gpmx/trace/trace_file.hpp"

namespace {
using namespace gpmx;
using trace::event_kind;

// Lanes 0 to 3 meet at a syncwarp with mask 0xf; every lane of the warp at a ballot.
struct warp_meet {
  void operator()(auto& t) const {
    if (t.lane_id() < 4) t.syncwarp(0xfu);
    (void)t.ballot(0xffffffffu, 1);
  }
};

trace::trace record_warp_meet() {
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 3, .observer = &rec});
  ex.launch({dim3(1), dim3(32), 0, "warp_meet"}, warp_meet{});
  return rec.take();
}

TEST(WarpRecording, EveryLanesArrivalIsRecordedWithItsMask) {
  const trace::trace t = record_warp_meet();
  std::size_t syncs = 0, ballots = 0;
  for (const trace::event& e : t.events) {
    if (e.kind != event_kind::warp_collective) continue;
    if (warp_op(e.result) == warp_op::syncwarp) {
      ++syncs;
      EXPECT_EQ(e.value, 0xfu);
      EXPECT_LT(e.lane, 4u);
    } else {
      EXPECT_EQ(warp_op(e.result), warp_op::ballot);
      EXPECT_EQ(e.value, 0xffffffffu);
      ++ballots;
    }
  }
  EXPECT_EQ(syncs, 4u);
  EXPECT_EQ(ballots, 32u);
}

TEST(WarpRecording, SurvivesTheFileAndTheDump) {
  const trace::trace t = record_warp_meet();
  EXPECT_EQ(trace::decode(trace::encode(t)), t);
  std::ostringstream out;
  trace::dump(t, out);
  EXPECT_NE(out.str().find("warp_collective syncwarp mask 0x0000000f"), std::string::npos) << out.str();
}

TEST(WarpRecording, VersionThreeFilesStillReadButCannotHoldWarpEvents) {
  const trace::trace t = record_warp_meet();
  trace::trace without = t;
  std::erase_if(without.events, [](const trace::event& e) { return e.kind == event_kind::warp_collective; });
  std::vector<std::uint8_t> bytes = trace::encode(without);
  bytes[8] = 3;  // the version before warp collectives
  EXPECT_EQ(trace::decode(bytes), without);

  bytes = trace::encode(t);
  bytes[8] = 3;
  std::size_t first = 0;
  while (t.events[first].kind != event_kind::warp_collective) ++first;
  try {
    (void)trace::decode(bytes, "old.trace");
    ADD_FAILURE() << "a version 3 file held a warp collective";
  } catch (const trace::trace_file_error& e) {
    EXPECT_EQ(e.offset(), trace::header_bytes + first * trace::record_bytes) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown event kind 14 (version 3 has 14)"), std::string::npos) << e.what();
  }
}

TEST(WarpRecording, AnUnknownWarpOperationIsRefused) {
  const trace::trace t = record_warp_meet();
  std::vector<std::uint8_t> bytes = trace::encode(t);
  std::size_t first = 0;
  while (t.events[first].kind != event_kind::warp_collective) ++first;
  const std::size_t at = trace::header_bytes + first * trace::record_bytes + 56;
  bytes[at] = 77;
  EXPECT_THROW((void)trace::decode(bytes), trace::trace_file_error);
}

}  // namespace
