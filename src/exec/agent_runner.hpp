#pragma once
// Running a launch's agents: stepped by the worker once per scheduling
// round in the deterministic schedule, on OS threads of their own in the
// parallel schedule.
#include <atomic>
#include <thread>
#include <vector>

#include "choice_policy.hpp"
#include "launch_state.hpp"

namespace gpmx::cpu::detail {

// What one deterministic round of agent steps did.
struct agent_round {
  bool progressed = false;  // some agent did work
  bool busy = false;        // some agent has work (done or in flight)
};

// Steps every agent of L once, in an order drawn from `order`.
agent_round step_agents(launch_state& L, choice_policy& order);

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
