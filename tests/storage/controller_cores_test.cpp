#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "gpmx/storage/controller.hpp"

namespace {
using gpmx::storage::workers_beside_controllers;

// Unsets GPMX_WORKERS for one test and restores what was there.
struct without_workers_env {
  std::string saved;
  bool had = false;
  without_workers_env() {
    if (const char* v = std::getenv("GPMX_WORKERS")) saved = v, had = true;
    unsetenv("GPMX_WORKERS");
  }
  ~without_workers_env() {
    if (had) setenv("GPMX_WORKERS", saved.c_str(), 1);
  }
};

TEST(ControllerCores, AnAskedWorkerCountIsKept) {
  without_workers_env clean;
  EXPECT_EQ(workers_beside_controllers(3, 1), 3u);
  EXPECT_EQ(workers_beside_controllers(1, 64), 1u);
}

TEST(ControllerCores, EveryCoreButOnePerControllerAndAtLeastOne) {
  without_workers_env clean;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(workers_beside_controllers(0, 0), cores);
  EXPECT_EQ(workers_beside_controllers(0, 1), cores > 1 ? cores - 1 : 1u);
  EXPECT_EQ(workers_beside_controllers(0, cores), 1u);
  EXPECT_EQ(workers_beside_controllers(0, cores + 5), 1u);
}

TEST(ControllerCores, GpmxWorkersLeavesTheChoiceToTheExecutor) {
  without_workers_env clean;
  setenv("GPMX_WORKERS", "7", 1);
  EXPECT_EQ(workers_beside_controllers(0, 1), 0u);  // 0: the executor reads GPMX_WORKERS
  EXPECT_EQ(workers_beside_controllers(2, 1), 2u);
  unsetenv("GPMX_WORKERS");
}

}  // namespace
