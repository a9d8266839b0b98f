#pragma once
// The loop every OS thread that steps an agent runs (beside the parallel
// schedule's launches and beside GPU launches): step until told to stop,
// report each result, back off while the agent has nothing to do.
#include "backoff.hpp"
#include "gpmx/exec/agent.hpp"

namespace gpmx::cpu::detail {

template <class Stop, class OnStep>
void step_until(agent& a, Stop stop, OnStep on_step) {
  backoff waiting;
  while (!stop()) {
    const agent::step_result r = a.step();
    on_step(r);
    if (r == agent::step_result::progressed) {
      waiting.reset();
      continue;
    }
    waiting.pause();
  }
}

}  // namespace gpmx::cpu::detail
