// What the trace schedule records: coordinates, program order, addresses,
// values, source lines, determinism and the prel each pacq read from.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "gpmx/exec/errors.hpp"
#include "trace_kernels.hpp"

namespace {
using namespace gpmx;
using trace::event_kind;
using trace_test::memory_domain;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(TraceRecording, KernelBoundariesNameTheLaunch) {
  const trace::trace t = trace_test::record_write_fence_read(1, 2, 4);
  ASSERT_GE(t.events.size(), 2u);
  const trace::event& begin = t.events.front();
  EXPECT_EQ(begin.kind, event_kind::kernel_begin);
  EXPECT_EQ(t.text_of(begin), "write_fence_read");
  EXPECT_EQ(trace::kernel_grid(begin), dim3(2));
  EXPECT_EQ(trace::kernel_block(begin), dim3(4));
  EXPECT_EQ(t.events.back().kind, event_kind::kernel_end);
  EXPECT_EQ(t.text_of(t.events.back()), "write_fence_read");  // kernel_end names the kernel too
  // 8 threads, 4 events each.
  EXPECT_EQ(t.events.size(), 2u + 8u * 4u);
}

TEST(TraceRecording, EachThreadsEventsAreInProgramOrderWithItsCoordinatesAndLines) {
  const trace::trace t = trace_test::record_write_fence_read(3, 2, 40);
  // Per thread: the events in trace order must be write, ofence, read, persist.
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<const trace::event*>> by_thread;
  for (const trace::event& e : t.events)
    if (e.kind != event_kind::kernel_begin && e.kind != event_kind::kernel_end)
      by_thread[{e.block, e.warp * 32 + e.lane}].push_back(&e);
  ASSERT_EQ(by_thread.size(), 80u);
  const event_kind expected[] = {event_kind::pm_write, event_kind::ofence, event_kind::pm_read,
                                 event_kind::gpm_persist};
  const unsigned lines[] = {trace_test::write_line, trace_test::ofence_line, trace_test::read_line,
                            trace_test::persist_line};
  for (const auto& [who, events] : by_thread) {
    ASSERT_EQ(events.size(), 4u);
    const std::uint64_t global = who.first * 40 + who.second;
    for (std::size_t k = 0; k < 4; ++k) {
      const trace::event& e = *events[k];
      EXPECT_EQ(e.kind, expected[k]) << "block " << who.first << " thread " << who.second;
      EXPECT_EQ(e.po, k);
      EXPECT_EQ(e.launch, 0u);
      EXPECT_LT(e.lane, 32u);
      EXPECT_EQ(e.line, lines[k]) << trace::to_string(e.kind);
      EXPECT_TRUE(ends_with(t.text_of(e), "trace_kernels.hpp")) << t.text_of(e);
    }
    const trace::event& write = *events[0];
    const trace::event& read = *events[2];
    EXPECT_EQ(write.bytes, 8u);
    EXPECT_EQ(write.value_bytes, 8u);
    std::uint64_t value = 0;
    std::memcpy(&value, write.data.data(), sizeof value);
    EXPECT_EQ(value, 100 + global);
    EXPECT_EQ(read.address, write.address);
    EXPECT_EQ(read.bytes, 8u);
  }
  // Slots are consecutive: addresses differ by the element size.
  const trace::event& w0 = *by_thread[{0, 0}][0];
  const trace::event& w1 = *by_thread[{0, 1}][0];
  EXPECT_EQ(w1.address - w0.address, 8u);
}

// The order in which threads made their events: the interleaving.
std::vector<std::pair<std::uint64_t, std::uint64_t>> interleaving(const trace::trace& t) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const trace::event& e : t.events) out.emplace_back(e.block * 1000 + e.warp * 32 + e.lane, e.po);
  return out;
}

TEST(TraceRecording, SameSeedSameTrace) {
  EXPECT_EQ(trace_test::record_write_fence_read(11, 3, 16), trace_test::record_write_fence_read(11, 3, 16));
}

TEST(TraceRecording, DifferentSeedsInterleaveDifferently) {
  const auto a = interleaving(trace_test::record_write_fence_read(1, 3, 16));
  const auto b = interleaving(trace_test::record_write_fence_read(2, 3, 16));
  const auto c = interleaving(trace_test::record_write_fence_read(3, 3, 16));
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
}

TEST(TraceRecording, ThreadsInterleaveBetweenTheirOwnEvents) {
  // Scheduling points at every PM access: some thread's events are not contiguous.
  const trace::trace t = trace_test::record_write_fence_read(5, 1, 32);
  bool interleaved = false;
  for (std::size_t i = 2; i + 1 < t.events.size(); ++i)
    if (t.events[i].po != 0 && t.events[i - 1].lane != t.events[i].lane) interleaved = true;
  EXPECT_TRUE(interleaved);
}

TEST(TraceRecording, PacqRecordsThePrelItReadFrom) {
  memory_domain domain;
  const unsigned blocks = 3, threads = 8;
  std::vector<std::uint32_t> data(blocks, 0), flags(blocks, 0), got(blocks * threads, 0);
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 9, .observer = &rec});
  ex.launch({dim3(blocks), dim3(threads), 0, "release_acquire"}, trace_test::release_acquire{},
            pm::pm_span<std::uint32_t>(data.data(), data.size(), &domain), flags.data(), got.data());
  const trace::trace t = rec.take();

  unsigned prels = 0, successful_pacqs = 0;
  for (std::uint64_t i = 0; i < t.events.size(); ++i) {
    const trace::event& e = t.events[i];
    if (e.kind == event_kind::prel) {
      ++prels;
      EXPECT_EQ(e.scope_of, scope::block);
      EXPECT_EQ(e.value, 1u);
      EXPECT_EQ(e.address, reinterpret_cast<std::uintptr_t>(&flags[e.block]));
      EXPECT_EQ(e.line, trace_test::prel_line);
      EXPECT_EQ(e.po, 1u);  // after the data write
    }
    if (e.kind != event_kind::pacq) continue;
    EXPECT_EQ(e.line, trace_test::pacq_line);
    EXPECT_EQ(e.address, reinterpret_cast<std::uintptr_t>(&flags[e.block]));
    if (e.value == 0) {
      EXPECT_EQ(e.reads_from, trace::no_event);  // read the initial value
      continue;
    }
    ++successful_pacqs;
    ASSERT_LT(e.reads_from, i);
    const trace::event& rel = t.events[e.reads_from];
    EXPECT_EQ(rel.kind, event_kind::prel);
    EXPECT_EQ(rel.block, e.block);
    EXPECT_EQ(rel.address, e.address);
  }
  EXPECT_EQ(prels, blocks);
  EXPECT_EQ(successful_pacqs, blocks * (threads - 1));
}

TEST(TraceRecording, AtomicsAndBarriersAreEvents) {
  std::uint32_t counter = 0;
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 4, .observer = &rec});
  ex.launch({dim3(1), dim3(4), 0, "count"}, [](auto& t, std::uint32_t* c) {
    t.atomic_add(c, 2u);
    t.syncthreads();
  }, &counter);
  const trace::trace t = rec.take();
  unsigned adds = 0, barriers = 0;
  for (const trace::event& e : t.events) {
    if (e.kind == event_kind::atomic) {
      ++adds;
      EXPECT_EQ(e.op, trace::atomic_op::add);
      EXPECT_EQ(e.value, 2u);
      EXPECT_EQ(e.address, reinterpret_cast<std::uintptr_t>(&counter));
      EXPECT_EQ(e.po, 0u);
    }
    if (e.kind == event_kind::barrier) {
      ++barriers;
      EXPECT_EQ(e.po, 1u);
    }
  }
  EXPECT_EQ(adds, 4u);
  EXPECT_EQ(barriers, 4u);
  EXPECT_EQ(counter, 8u);
}

TEST(TraceRecording, LaunchesAreNumbered) {
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
  memory_domain domain;
  std::vector<std::uint64_t> slots(4), seen(4);
  for (int k = 0; k < 2; ++k)
    ex.launch({dim3(1), dim3(4), 0, "again"}, trace_test::write_fence_read{},
              pm::pm_span<std::uint64_t>(slots.data(), slots.size(), &domain), seen.data());
  const trace::trace t = rec.take();
  EXPECT_EQ(t.events.front().launch, 0u);
  EXPECT_EQ(t.events.back().launch, 1u);
  EXPECT_EQ(t.events[t.events.size() / 2].kind, event_kind::kernel_begin);
  EXPECT_EQ(t.events[t.events.size() / 2].launch, 1u);
  EXPECT_EQ(t.events[t.events.size() / 2 + 1].po, 0u);  // program order restarts per launch
}

TEST(TraceRecording, TheParallelScheduleRefusesARecorder) {
  // The recorder takes no locks: only the one-worker schedule may call it.
  trace::recorder rec;
  EXPECT_THROW(cpu::executor({.workers = 2, .policy = cpu::schedule::parallel, .observer = &rec}),
               config_error);
  EXPECT_TRUE(rec.recorded().events.empty());
}

}  // namespace
