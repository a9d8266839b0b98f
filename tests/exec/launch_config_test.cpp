#include <gtest/gtest.h>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"

namespace {

std::string error_of(const gpmx::launch_config& cfg) {
  try {
    gpmx::validate(cfg);
  } catch (const gpmx::config_error& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchConfig, AcceptsCudaLimits) {
  EXPECT_EQ(error_of({{2147483647u, 65535u, 65535u}, {1024, 1, 1}}), "");
  EXPECT_EQ(error_of({{1}, {32, 32, 1}}), "");
  EXPECT_EQ(error_of({{1}, {1, 16, 64}}), "");
}

TEST(LaunchConfig, NamesTheValueAtFault) {
  EXPECT_NE(error_of({{1}, {1025}}).find("block.x = 1025 exceeds the limit 1024"), std::string::npos);
  EXPECT_NE(error_of({{1}, {64, 32}, 0, "k"}).find("2048 threads; at most 1024"), std::string::npos);
  EXPECT_NE(error_of({{1}, {1, 1, 65}}).find("block.z = 65"), std::string::npos);
  EXPECT_NE(error_of({{1, 65536}, {1}}).find("grid.y = 65536"), std::string::npos);
  EXPECT_NE(error_of({{1, 1, 65536}, {1}}).find("grid.z = 65536"), std::string::npos);
  EXPECT_NE(error_of({{0}, {1}}).find("grid.x is 0"), std::string::npos);
  EXPECT_NE(error_of({{1}, {32}, 300000}).find("dynamic shared memory of 300000 bytes"),
            std::string::npos);
  EXPECT_NE(error_of({{1}, {0}, 0, "mykernel"}).find("kernel 'mykernel'"), std::string::npos);
}

TEST(LaunchConfig, ExecutorRejectsBadConfigBeforeRunning) {
  gpmx::cpu::executor ex({.workers = 1});
  int runs = 0;
  EXPECT_THROW(ex.launch({{1}, {2048}}, [&](auto&) { ++runs; }), gpmx::config_error);
  EXPECT_EQ(runs, 0);
}

}  // namespace
