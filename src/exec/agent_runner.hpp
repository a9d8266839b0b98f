#pragma once
// Running a launch's agents: stepped by the worker once per scheduling
// round in the deterministic schedule, on OS threads of their own in the
// parallel schedule.
#include <atomic>
#include <thread>
#include <vector>

#include "choice_policy.hpp"
#include "gpmx/exec/timing.hpp"
#include "launch_state.hpp"

namespace gpmx::cpu::detail {

// What one deterministic round of agent steps did.
struct agent_round {
  bool progressed = false;  // some agent did work
  bool busy = false;        // some agent has work (done or in flight)
};

// Steps every agent of L once, in an order drawn from `order`.
agent_round step_agents(launch_state& L, choice_policy& order);

// The timed schedule's round at virtual time `now`, in an order drawn from
// `order`: agent i steps only once `now` reaches ready[i] (one entry per
// agent, 0 at the launch's start), the model timing what each step
// persists and setting ready[i] to when that is complete; an agent still
// waiting counts as busy. order_scratch: the caller's, so a round
// allocates nothing (the timed schedule steps agents at every issue).
agent_round step_agents_at(launch_state& L, choice_policy& order, timing_model& model, vtime now,
                           std::vector<vtime>& ready, std::vector<std::size_t>& order_scratch);
// The earliest ready time after `now` (vtime_never: none).
vtime next_agent_ready(const std::vector<vtime>& ready, vtime now);

// The parallel schedule's agent threads for one launch: they start with it
// and stop (and are joined) when it ends. An agent's error fails the launch.
class agent_threads {
 public:
  explicit agent_threads(launch_state& L);
  ~agent_threads() { stop(); }
  agent_threads(const agent_threads&) = delete;
  agent_threads& operator=(const agent_threads&) = delete;
  void stop();

 private:
  void run(agent& a);
  launch_state& L_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace gpmx::cpu::detail
