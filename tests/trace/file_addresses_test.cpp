// The addresses a trace file holds: pools at fixed bases with their offsets
// kept, other addresses numbered by first appearance, so two recordings of
// the same run give the same bytes wherever the process mapped its memory.
#include <gtest/gtest.h>

#include "gpmx/trace/trace_file.hpp"

namespace {
using namespace gpmx;
using trace::event_kind;

trace::event at(event_kind k, std::uint64_t address) {
  trace::event e;
  e.kind = k;
  e.address = address;
  e.bytes = 8;
  return e;
}

// Two pools mapped one after the other at the same process address, and
// flags in device memory, recorded at the given process addresses.
trace::trace recorded(std::uint64_t pool_at, std::uint64_t flag_at) {
  trace::trace t;
  t.events = {at(event_kind::pm_write, pool_at + 16), at(event_kind::prel, flag_at),
              at(event_kind::pacq, flag_at),          at(event_kind::atomic, flag_at + 4),
              at(event_kind::pm_write, pool_at + 24), at(event_kind::gpm_persist, 0)};
  t.pools.push_back({"a.pool", pool_at, 4096, 0, 4, std::vector<std::uint8_t>(4096, 1)});
  t.pools.push_back({"b.pool", pool_at, 4096, 4, 6, std::vector<std::uint8_t>(4096, 2)});
  return t;
}

TEST(TraceFileAddresses, PoolsKeepOffsetsAndOtherAddressesAreNumbered) {
  const trace::trace f = trace::with_file_addresses(recorded(0x7f12'3456'7000, 0x5631'0000'0040));
  EXPECT_EQ(f.pools[0].base, 1ull << 40);
  EXPECT_EQ(f.pools[1].base, 2ull << 40);
  EXPECT_EQ(f.events[0].address, (1ull << 40) + 16);
  EXPECT_EQ(f.events[4].address, (2ull << 40) + 24);  // the second pool, mapped at the same place later
  EXPECT_EQ(f.events[1].address, f.events[2].address);  // the prel and the pacq of one flag stay together
  EXPECT_NE(f.events[3].address, f.events[1].address);
  EXPECT_EQ(f.events[5].address, 0u);
}

TEST(TraceFileAddresses, TheFileDoesNotDependOnWhereTheProcessMappedItsMemory) {
  const auto first = trace::encode(recorded(0x7f12'3456'7000, 0x5631'0000'0040));
  const auto second = trace::encode(recorded(0x7fee'0000'0000, 0x55aa'0bcd'0100));
  EXPECT_EQ(first, second);
  trace::trace moved = recorded(0x7f12'3456'7000, 0x5631'0000'0040);
  moved.events[0].address += 8;  // another offset inside the pool must show
  EXPECT_NE(trace::encode(moved), first);
}

}  // namespace
