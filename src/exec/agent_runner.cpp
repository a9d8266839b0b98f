#include "agent_runner.hpp"

#include "agent_loop.hpp"

#include <algorithm>
#include <numeric>

namespace gpmx::cpu::detail {

namespace {
// One step of `a`, told to the observer, added to `round`.
agent::step_result step_observed(launch_state& L, agent& a, agent_round& round) {
  if (L.obs) L.obs->agent_begin(a.name());
  const agent::step_result r = a.step();
  if (L.obs) L.obs->agent_end(a.name());
  if (r == agent::step_result::progressed) {
    round.progressed = true;
    if (L.obs) L.obs->agent_step(a.name());
  }
  round.busy |= r != agent::step_result::idle;
  return r;
}
}  // namespace

agent_round step_agents(launch_state& L, choice_policy& order) {
  agent_round round;
  if (L.agents.empty()) return round;
  std::vector<agent*> agents = L.agents;
  order.shuffle(agents.begin(), agents.end());
  for (agent* a : agents) (void)step_observed(L, *a, round);
  return round;
}

agent_round step_agents_at(launch_state& L, choice_policy& order, timing_model& model, vtime now,
                           std::vector<vtime>& ready, std::vector<std::size_t>& order_scratch) {
  agent_round round;
  order_scratch.resize(L.agents.size());
  std::iota(order_scratch.begin(), order_scratch.end(), std::size_t(0));
  order.shuffle(order_scratch.begin(), order_scratch.end());  // as step_agents draws it
  for (const std::size_t i : order_scratch) {
    if (ready[i] > now) {  // waiting for its persists
      round.busy = true;
      continue;
    }
    model.agent_step_begins(now);
    (void)step_observed(L, *L.agents[i], round);
    ready[i] = model.agent_step_ends(now);
    round.busy |= ready[i] > now;
  }
  return round;
}

vtime next_agent_ready(const std::vector<vtime>& ready, vtime now) {
  vtime next = vtime_never;
  for (const vtime t : ready)
    if (t > now) next = std::min(next, t);
  return next;
}

agent_threads::agent_threads(launch_state& L) : L_(L) {
  threads_.reserve(L.agents.size());
  for (agent* a : L.agents) threads_.emplace_back([this, a] { run(*a); });
}

void agent_threads::stop() {
  stop_.store(true, std::memory_order_relaxed);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void agent_threads::run(agent& a) {
  try {
    step_until(
        a,
        [this] { return stop_.load(std::memory_order_relaxed) || L_.abort.load(std::memory_order_relaxed); },
        [this, &a](agent::step_result r) {
          // Work done or in flight keeps stalled workers from declaring a
          // deadlock: what their threads spin on may be on its way.
          if (r != agent::step_result::idle && L_.stalled_workers.load(std::memory_order_relaxed) != 0)
            L_.progress.fetch_add(1, std::memory_order_relaxed);
          if (r == agent::step_result::progressed && L_.obs) L_.obs->agent_step(a.name());
        });
  } catch (...) {
    L_.fail(std::current_exception());
  }
}

}  // namespace gpmx::cpu::detail
