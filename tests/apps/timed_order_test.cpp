// The timed mode's persistency hardware obeys the formal model: every
// workload runs once in each style on the hardware of its model, traced
// at the same time, and the order in which the simulated hardware made its
// PM stores durable must be one the checker's persist order allows: each
// store's pmo-predecessors durable no later (docs/sim-persistency.md,
// "The hardware against the model").
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "gpmx/check/durable_order.hpp"
#include "gpmx/check/persist_order.hpp"
#include "gpmx/trace/recorder.hpp"
#include "timed_images.hpp"
#include "workload_cases.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

struct order_case {
  std::string workload;
  style s;
  std::string hardware;  // persist.model
};

// So that gtest's and ctest's listings show the case, not its bytes.
void PrintTo(const order_case& c, std::ostream* os) {
  *os << c.workload << " " << to_string(c.s) << " on " << c.hardware;
}

std::string case_name(const testing::TestParamInfo<order_case>& i) {
  return test::test_name(i.param.workload + "_" + std::string(to_string(i.param.s)) + "_on_" + i.param.hardware);
}

std::vector<order_case> every_workload() {
  std::vector<order_case> v;
  for (const auto& w : all_workloads()) {
    v.push_back({std::string(w->name()), style::epoch, "epoch"});
    v.push_back({std::string(w->name()), style::epoch, "gpm"});
    v.push_back({std::string(w->name()), style::sbrp, "sbrp"});
  }
  return v;
}

class TimedOrder : public testing::TestWithParam<order_case> {};

TEST_P(TimedOrder, TheHardwareMakesStoresDurableInAnOrderTheModelAllows) {
  if (test::too_big_for_thread_sanitizer(GetParam().workload)) GTEST_SKIP() << "too many mappings under TSan";
  workload& w = find_workload(GetParam().workload);
  sim::sim_config c;
  sim::set_parameter(c, "persist.model", GetParam().hardware);
  test::timed_images run(w, c);
  run.tracker.remember_stores();
  trace::recorder recorder;
  run.gpu.set_passenger(&recorder);
  run.run(GetParam().s);
  const sim::durability_tracker& tracker = run.tracker;
  const trace::trace t = recorder.take();

  // The trace's kernel view stores are the tracker's, one for one.
  std::size_t k = 0;
  for (const trace::event& e : t.events) {
    if (e.kind != trace::event_kind::pm_write || trace::is_host(e) || e.block == trace::unviewed_block) continue;
    ASSERT_LT(k, tracker.stores());
    ASSERT_EQ(e.address, tracker.store_address(k)) << "kernel store " << k;
    ++k;
  }
  ASSERT_EQ(k, tracker.stores());
  // The checkpointing workloads copy with raw pointers: nothing to order.
  if (k == 0) GTEST_SKIP() << GetParam().workload << "'s kernels store to PM through no view";

  const check::persist_order order(
      t, {.model = GetParam().s == style::sbrp ? check::persist_model::sbrp : check::persist_model::epoch,
          .granularity = 8,
          .max_granule_stores = std::size_t(1) << 18});
  const check::durable_order_result r = check::check_durable_order(
      t, order, [&](std::size_t store, std::uint64_t address) { return tracker.durable_time(store, address); });
  EXPECT_GT(r.kernel_stores, 0u);
  EXPECT_EQ(r.durable, r.kernel_stores) << "every kernel store is durable by the run's end";
  EXPECT_EQ(r.violations, 0u);
  for (const check::durable_order_violation& v : r.first)
    ADD_FAILURE() << "granule-store " << v.store << " (event " << order.node(v.store).event << ") durable at "
                  << v.store_durable << " ps, but its predecessor " << v.predecessor << " (event "
                  << order.node(v.predecessor).event << ") at " << v.predecessor_durable << " ps";
}

INSTANTIATE_TEST_SUITE_P(EveryWorkload, TimedOrder, testing::ValuesIn(every_workload()), case_name);

}  // namespace
