// The log's reading: whole records only, the unbroken run after the last
// applied one, epochs, and corrupt records refused with a message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpmx/pm/errors.hpp"
#include "gpmx/stm/log_scan.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::stm;

struct log_builder {
  log_geometry g{0, 0, 3, 16};  // three committer streams of 16 entries
  std::vector<log_entry> log = std::vector<log_entry>(48, 0);
  std::vector<std::uint64_t> pos = std::vector<std::uint64_t>(3, 0);
  std::uint64_t epoch = 0;

  // Appends a record (wrapping around a stream's end, as a ring's writer
  // does); `torn` leaves its mark out.
  void add(std::uint32_t stream, std::uint32_t seq, std::vector<word_write> w, bool torn = false) {
    const std::uint64_t size = g.stream_entries(stream);
    const auto slot = [&](std::uint64_t i) -> log_entry& { return log[g.stream_start(stream) + (pos[stream] + i) % size]; };
    const log_entry h = make_header(seq, std::uint32_t(w.size()));
    slot(0) = h;
    for (std::size_t i = 0; i < w.size(); ++i) slot(1 + i) = make_data(w[i].word, w[i].value);
    if (!torn) slot(1 + w.size()) = make_mark(seq, mark_check(epoch, h));
    pos[stream] += record_entries(std::uint32_t(w.size()));
  }
  log_scan scan(std::uint64_t applied = 0, std::uint32_t words = 8, std::span<const std::uint64_t> starts = {}) const {
    return scan_log(log, g, epoch, applied, words, "test log", starts);
  }
};

TEST(LogScan, OrdersRecordsFromAllStreamsBySequence) {
  log_builder b;
  b.add(0, 2, {{1, 20}});
  b.add(1, 1, {{1, 10}, {2, 11}});
  b.add(2, 3, {{3, 30}});
  const log_scan s = b.scan();
  ASSERT_EQ(s.records.size(), 3u);
  EXPECT_EQ(s.prefix, 3u);
  EXPECT_EQ(s.gap_at, 0u);
  std::vector<std::uint32_t> home(8, 0);
  EXPECT_EQ(apply_prefix(s, home, 0), 3u);
  EXPECT_EQ(home[1], 20u);  // record 2 after record 1
  EXPECT_EQ(home[2], 11u);
  EXPECT_EQ(home[3], 30u);
}

TEST(LogScan, StopsAtTheFirstMissingSequenceNumber) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.add(1, 2, {{0, 2}}, /*torn=*/true);
  b.add(2, 3, {{0, 3}});
  const log_scan s = b.scan();
  EXPECT_EQ(s.prefix, 1u);
  EXPECT_EQ(s.gap_at, 2u);
  EXPECT_EQ(s.records.size(), 2u);  // 1 and 3; 3 is discarded
  std::vector<std::uint32_t> home(8, 0);
  EXPECT_EQ(apply_prefix(s, home, 0), 1u);
  EXPECT_EQ(home[0], 1u);
}

TEST(LogScan, ATornRecordEndsItsStream) {
  log_builder b;
  b.add(0, 1, {{0, 1}}, /*torn=*/true);
  b.add(0, 2, {{0, 2}});  // after the torn one: never reached
  const log_scan s = b.scan();
  EXPECT_TRUE(s.records.empty());
  EXPECT_EQ(s.streams_cut, 1u);
}

TEST(LogScan, AMarkForAnotherHeaderIsNotAMark) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.log[0] = make_header(1, 2);  // the size changed after the mark was made
  EXPECT_TRUE(b.scan().records.empty());
}

TEST(LogScan, RecordsOfAnEarlierEpochDoNotCount) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.epoch = 1;  // the log was truncated; the old record is still there
  EXPECT_TRUE(b.scan().records.empty());
}

TEST(LogScan, RecordsAlreadyAppliedAreSkipped) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.add(0, 2, {{0, 2}});
  b.add(1, 3, {{0, 3}});
  const log_scan s = b.scan(/*applied=*/2);
  EXPECT_EQ(s.stale, 2u);
  EXPECT_EQ(s.prefix, 1u);
  EXPECT_EQ(s.records[0].seq, 3u);
}

TEST(LogScan, ApplyingTwiceGivesTheSameImage) {
  log_builder b;
  b.add(0, 1, {{0, 5}, {1, 6}});
  b.add(1, 2, {{0, 7}});
  const log_scan s = b.scan();
  std::vector<std::uint32_t> once(8, 0), twice(8, 0);
  apply_prefix(s, once, 0);
  apply_prefix(s, twice, 0);
  apply_prefix(s, twice, 0);
  EXPECT_EQ(once, twice);
}

TEST(LogScan, AValidRecordPastTheDataIsCorrupt) {
  log_builder b;
  b.add(0, 1, {{9, 1}});
  try {
    (void)b.scan(0, /*words=*/8);
    FAIL() << "no error";
  } catch (const pm::pm_error& e) {
    EXPECT_NE(std::string(e.what()).find("writes word 9, past the 8 words"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test log"), std::string::npos);
  }
}

TEST(LogScan, ASequenceNumberTwiceWithOtherWritesIsCorrupt) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.add(1, 1, {{0, 2}});
  try {
    (void)b.scan();
    ADD_FAILURE() << "no error";
  } catch (const pm::pm_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds record 1 twice with different writes"), std::string::npos) << e.what();
  }
}

TEST(LogScan, ARecordWrittenTwiceIsKeptOnce) {
  log_builder b;
  b.add(0, 1, {{0, 5}, {3, 6}});
  b.add(0, 2, {{1, 7}});
  b.add(1, 1, {{0, 5}, {3, 6}});  // the same record again, in another stream
  const log_scan s = b.scan();
  EXPECT_EQ(s.duplicates, 1u);
  ASSERT_EQ(s.records.size(), 2u);
  EXPECT_EQ(s.prefix, 2u);
  EXPECT_EQ(s.records[0].seq, 1u);
  EXPECT_EQ(s.records[1].seq, 2u);
}

TEST(LogScan, ALogSmallerThanItsGeometryIsCorrupt) {
  log_builder b;
  b.log.resize(10);
  EXPECT_THROW((void)b.scan(), pm::pm_error);
}


// A ring (log_geometry::wraps) is read from its durable start for one lap:
// a record that wraps around the stream's end is whole, and what lies
// beyond this lap's records is the last lap's, already applied.
TEST(LogScan, ARingIsReadFromItsStartForOneLapAcrossItsEnd) {
  log_builder b;
  b.g.wraps = true;
  // Stream 0 (16 entries): records 1-4 of 3 entries each fill positions 0-11;
  // the truncator applied 1-3 and moved the start to 9; records 5 and 6 then
  // wrap: 5 at positions 12-14, 6 at 15-17 (slots 15, 0, 1).
  for (std::uint32_t seq = 1; seq <= 4; ++seq) b.add(0, seq, {{0, seq}});
  b.add(0, 5, {{1, 5}});
  b.add(0, 6, {{2, 6}});
  const std::vector<std::uint64_t> starts = {9, 0, 0};
  const log_scan s = b.scan(/*applied=*/3, 8, starts);
  ASSERT_EQ(s.records.size(), 3u);  // 4, 5 and 6
  EXPECT_EQ(s.prefix, 3u);
  EXPECT_EQ(s.records[2].seq, 6u);
  EXPECT_EQ(s.streams_cut, 1u);  // then slot 2, record 1's mark: not a header
  std::vector<std::uint32_t> home(8, 0);
  EXPECT_EQ(apply_prefix(s, home, 3), 6u);
  EXPECT_EQ(home[2], 6u);  // written by the record that wrapped
}

TEST(LogScan, StaleRecordsOfTheLastLapAreSkippedNotApplied) {
  log_builder b;
  b.g.wraps = true;
  for (std::uint32_t seq = 1; seq <= 5; ++seq) b.add(0, seq, {{0, seq}});  // positions 0-14
  // Everything applied; the start moved to 15 and record 6 wrapped
  // (positions 15-18, slots 15 and 0-2): the lap from 15 then meets records
  // 2-5 of the last lap at slots 3-14, all applied.
  b.add(0, 6, {{0, 6}, {1, 6}});
  const std::vector<std::uint64_t> starts = {15, 0, 0};
  const log_scan s = b.scan(/*applied=*/5, 8, starts);
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].seq, 6u);
  EXPECT_EQ(s.stale, 4u);
}

// The truncator reads up to what a writer published as durable: a record
// whose end lies past it is not finished, not torn.
TEST(LogScan, AReadUpToAPublishedEndStopsCleanlyBeforeAnUnfinishedRecord) {
  log_builder b;
  b.add(0, 1, {{0, 1}});
  b.add(0, 2, {{0, 2}, {1, 2}});  // positions 3-6
  log_scan out;
  std::vector<std::uint64_t> ends;
  const stream_read r = read_stream(std::span<const log_entry>(b.log).first(16), 0, 0, 5, true, b.epoch, 8,
                                    "test log", out, &ends);
  EXPECT_TRUE(r.clean);
  EXPECT_EQ(r.end, 3u);
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(ends, std::vector<std::uint64_t>{3});
  const stream_read lap = read_stream(std::span<const log_entry>(b.log).first(16), 0, 0, 5, false, b.epoch, 8,
                                      "test log", out);
  EXPECT_FALSE(lap.clean) << "at the end of a lap the same record is torn";
}

}  // namespace
