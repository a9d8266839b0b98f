#pragma once
// Agents beside a kernel that does not run on the cpu executor (a GPU
// launch): each agent is stepped on an OS thread of its own from
// construction until stop(), as the parallel schedule does beside its own
// launches (gpmx/exec/agent.hpp). An agent that throws stops its thread;
// stop() rethrows the first such error.
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "gpmx/exec/agent.hpp"

namespace gpmx {

class host_agent_threads {
 public:
  explicit host_agent_threads(const std::vector<agent*>& agents);
  ~host_agent_threads();  // stops, dropping any error (stop() first to see it)
  host_agent_threads(const host_agent_threads&) = delete;
  host_agent_threads& operator=(const host_agent_threads&) = delete;

  // Joins the threads; throws the first error an agent raised.
  void stop();
  // Whether an agent has failed (its thread has stopped).
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  void run(agent& a);
  void join();
  std::atomic<bool> stop_{false}, failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace gpmx
