// Agents under the trace mode: each step that worked is an event, and a
// seed gives the same events every time.
#include <gtest/gtest.h>

#include "gpmx/trace/recorder.hpp"
#include "exec/agent_workload.hpp"

namespace {
using namespace gpmx;
using namespace agent_test;

TEST(AgentRecording, TheTraceRecordsEachStepThatWorked) {
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 5, .observer = &rec});
  const run_result r = consume(ex, 3, 32);
  expect_all_consumed(r);
  const trace::trace t = rec.take();
  std::uint64_t steps = 0;
  for (const trace::event& e : t.events)
    if (e.kind == trace::event_kind::agent_step) {
      ++steps;
      EXPECT_EQ(t.text_of(e), "producer");
    }
  EXPECT_EQ(steps, r.steps);
}

TEST(AgentRecording, DeterministicRunsRepeatForASeed) {
  auto events = [](std::uint64_t seed) {
    trace::recorder rec;
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed, .observer = &rec});
    consume(ex, 4, 32);
    return rec.take();
  };
  EXPECT_EQ(events(11), events(11));
}

}  // namespace
