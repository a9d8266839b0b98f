// The trace file: round trips, the text dump, and rejection of damaged files.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "gpmx/trace/dump.hpp"
#include "gpmx/trace/trace_file.hpp"
#include "trace_kernels.hpp"

namespace {
using namespace gpmx;
using trace::trace_file_error;

const trace::trace& sample() {
  static const trace::trace t = trace_test::record_write_fence_read(7, 2, 8);
  return t;
}

TEST(TraceFile, RoundTripsInMemory) {
  const std::vector<std::uint8_t> bytes = trace::encode(sample());
  EXPECT_GE(bytes.size(), trace::header_bytes + sample().events.size() * trace::record_bytes);
  EXPECT_EQ(trace::decode(bytes), trace::with_file_addresses(sample()));
  // What is read back is written back unchanged.
  EXPECT_EQ(trace::encode(trace::decode(bytes)), bytes);
}

TEST(TraceFile, RoundTripsThroughAFile) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpmx-trace-test-" + std::to_string(::getpid()) + ".trace");
  trace::write_trace(sample(), path);
  const trace::trace back = trace::read_trace(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back, trace::with_file_addresses(sample()));
}

TEST(TraceFile, EmptyTraceRoundTrips) {
  EXPECT_EQ(trace::decode(trace::encode({})), trace::trace{});
}

// Expects decode to fail at `offset` with a message that says so.
void expect_rejected(const std::vector<std::uint8_t>& bytes, std::uint64_t offset, const std::string& words) {
  try {
    trace::decode(bytes, "sample.trace");
    ADD_FAILURE() << "accepted a damaged trace";
  } catch (const trace_file_error& e) {
    EXPECT_EQ(e.offset(), offset) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find("sample.trace: offset " + std::to_string(offset)), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

TEST(TraceFile, RejectsBadMagicAndVersion) {
  auto bytes = trace::encode(sample());
  bytes[0] = 'X';
  expect_rejected(bytes, 0, "magic");
  bytes = trace::encode(sample());
  bytes[8] = 99;
  expect_rejected(bytes, 8, "version 99");
}

TEST(TraceFile, RejectsTruncatedFiles) {
  const auto full = trace::encode(sample());
  expect_rejected({full.begin(), full.begin() + 20}, 16, "truncated");
  // Cut inside the records: the header's count no longer fits.
  expect_rejected({full.begin(), full.begin() + trace::header_bytes + trace::record_bytes + 5}, 16,
                  "truncated");
  // Cut inside the string table.
  const std::size_t last_string = full.size() - 4 - sample().strings.back().size();
  expect_rejected({full.begin(), full.end() - 3}, last_string, "truncated: string");
}

TEST(TraceFile, RejectsCorruptRecords) {
  const std::size_t second = trace::header_bytes + trace::record_bytes;
  auto bytes = trace::encode(sample());
  bytes[second] = 200;  // event kind
  expect_rejected(bytes, second, "unknown event kind 200");
  bytes = trace::encode(sample());
  bytes[second + 3] = 65;  // value bytes
  expect_rejected(bytes, second + 3, "at most 64");
  bytes = trace::encode(sample());
  bytes[second + 72] = 0xee;  // string index
  bytes[second + 73] = 0xee;
  expect_rejected(bytes, second + 72, "names string");
  bytes = trace::encode(sample());
  bytes.push_back(0);
  expect_rejected(bytes, bytes.size() - 1, "unexpected bytes");
}

TEST(TraceFile, RejectsAnAgentEventWhoseNameIsNoString) {
  trace::trace t = sample();
  std::size_t i = 0;
  const auto kernel_thread = [](const trace::event& e) {
    return !trace::is_host(e) && e.kind != trace::event_kind::kernel_begin && e.kind != trace::event_kind::kernel_end;
  };
  while (i < t.events.size() && !kernel_thread(t.events[i])) ++i;
  ASSERT_LT(i, t.events.size()) << "the sample has a kernel thread's event";
  t.events[i].block = trace::agent_block;  // an agent's event: `warp` holds its name's string
  t.events[i].warp = std::uint32_t(t.strings.size());
  const std::size_t at = trace::header_bytes + i * trace::record_bytes;
  expect_rejected(trace::encode(t), at + 16, "as its agent");
  t.events[i].warp = 0;  // a string of the table: accepted
  EXPECT_EQ(trace::decode(trace::encode(t), "sample.trace").events.size(), t.events.size());
}

TEST(TraceFile, DumpsOneLinePerEvent) {
  std::ostringstream out;
  trace::dump(sample(), out);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), std::ptrdiff_t(sample().events.size()));
  EXPECT_NE(text.find("kernel_begin 'write_fence_read' grid (2,1,1) block (8,1,1)"), std::string::npos) << text;
  EXPECT_NE(text.find("trace_kernels.hpp:" + std::to_string(trace_test::write_line)), std::string::npos);
  EXPECT_NE(text.find(" ofence trace_kernels.hpp:"), std::string::npos);
}

}  // namespace
