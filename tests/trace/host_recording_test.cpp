// The host thread in a trace: pool images, host stores found by comparison
// with the shadow copy, host persists with their line, and the stores a
// kernel made without a PM view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"
#include "gpmx/trace/trace_file.hpp"
#include "trace/find_store.hpp"

namespace {
using namespace gpmx;
using trace::event_kind;
namespace fs = std::filesystem;

// One thread stores through the view, another through a raw pointer.
struct view_and_raw {
  void operator()(auto& t, pm::pm_span<std::uint64_t> v, std::uint64_t* raw) const {
    if (t.global_id() == 0) v.bind(t)[0] = 0x1111111111111111;
    else *raw = 0x2222222222222222;
  }
};

trace::trace record(const fs::path& dir, unsigned& persist_line) {
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
  pm::pool p = pm::pool::create(dir / "t.pool", 1 << 20, {.mode = pm::durability::none});
  pm::region r = p.create_region("data", 4096);
  auto* words = reinterpret_cast<std::uint64_t*>(r.data());
  words[0] = 0x0707070707070707;  // a host store, persisted below (every byte changes)
  words[2] = 0x0808080808080808;  // a host store never persisted (apart: its own run of changed bytes)
  persist_line = __LINE__ + 1;
  r.persist(0, 8);
  ex.launch({dim3(1), dim3(2), 0, "view_and_raw"}, view_and_raw{}, r.span<std::uint64_t>().subspan(8, 1),
            words + 16);
  return rec.take();
}

TEST(HostRecording, PoolImagesHostStoresHostPersistsAndUnviewedKernelStores) {
  const scratch_dir s;
  unsigned persist_line = 0;
  const trace::trace t = record(s.path(), persist_line);
  ASSERT_EQ(t.pools.size(), 1u);
  EXPECT_EQ(fs::path(t.pools[0].path).filename(), "t.pool");
  EXPECT_EQ(t.pools[0].before.size(), t.pools[0].length);
  const std::uint64_t base = t.pools[0].base;

  auto find_store = [&](std::uint64_t value) { return trace::testing::find_store(t, value); };
  const auto seven = find_store(0x0707070707070707), eight = find_store(0x0808080808080808);
  const auto viewed = find_store(0x1111111111111111), raw = find_store(0x2222222222222222);
  ASSERT_NE(seven, t.events.end());
  ASSERT_NE(eight, t.events.end());
  ASSERT_NE(viewed, t.events.end());
  ASSERT_NE(raw, t.events.end());
  EXPECT_TRUE(trace::is_host(*seven));
  EXPECT_TRUE(trace::is_host(*eight));
  EXPECT_GE(seven->address, base);
  EXPECT_EQ(eight->address, seven->address + 16);
  // The persist of words[0] names this file and line, after the stores found at it.
  const auto persist = std::find_if(seven, t.events.end(), [](const trace::event& e) {
    return e.kind == event_kind::host_persist;
  });
  ASSERT_NE(persist, t.events.end());
  EXPECT_EQ(persist->address, seven->address);
  EXPECT_EQ(persist->bytes, 8u);
  EXPECT_EQ(persist->line, persist_line);
  EXPECT_NE(t.text_of(*persist).find("host_recording_test.cpp"), std::string::npos);
  // The view's store is an ordinary kernel store; the raw one is found at the kernel's end.
  EXPECT_FALSE(trace::is_host(*viewed));
  EXPECT_NE(viewed->block, trace::unviewed_block);
  EXPECT_EQ(raw->block, trace::unviewed_block);
  EXPECT_EQ(raw->launch, 0u);
  EXPECT_EQ(std::next(raw)->kind, event_kind::kernel_end);
  EXPECT_EQ(t.text_of(*raw), "view_and_raw");
  // Only one event each: the view's store was absorbed into the shadow, not found again.
  EXPECT_EQ(std::count_if(t.events.begin(), t.events.end(),
                          [](const trace::event& e) { return e.kind == event_kind::pm_write && e.data[0] == 0x11 &&
                                                             e.data[1] == 0x11; }),
            1);
}

TEST(HostRecording, PoolImagesSurviveTheTraceFile) {
  const scratch_dir s;
  unsigned line = 0;
  const trace::trace t = record(s.path(), line);
  const trace::trace back = trace::decode(trace::encode(t), "memory");
  EXPECT_EQ(back, trace::with_file_addresses(t));
  std::vector<std::uint8_t> bytes = trace::encode(t);
  bytes.resize(bytes.size() - 10);  // cut into the pool image
  EXPECT_THROW(trace::decode(bytes, "cut"), trace::trace_file_error);
}

TEST(HostRecording, NothingIsWatchedWithoutATraceExecutor) {
  const scratch_dir s;
  EXPECT_EQ(host_observer(), nullptr);
  trace::recorder rec;
  {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
    EXPECT_EQ(host_observer(), static_cast<observer*>(&rec));
  }
  EXPECT_EQ(host_observer(), nullptr);
  pm::pool p = pm::pool::create(s.path() / "u.pool", 1 << 20, {.mode = pm::durability::none});
  EXPECT_TRUE(rec.take().pools.empty());
}

}  // namespace
