#include <gtest/gtest.h>

#include <cstdlib>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"

namespace {
using namespace gpmx;

struct env_guard {
  const char* name;
  env_guard(const char* n, const char* v) : name(n) { ::setenv(n, v, 1); }
  ~env_guard() { ::unsetenv(name); }
};

TEST(Options, WorkersFromEnvironment) {
  env_guard g("GPMX_WORKERS", "3");
  EXPECT_EQ(cpu::resolve({}).workers, 3u);
  EXPECT_EQ(cpu::resolve({.workers = 5}).workers, 5u);  // an explicit value wins
}

TEST(Options, DeterministicMeansOneWorker) {
  EXPECT_EQ(cpu::resolve({.workers = 8, .policy = cpu::schedule::deterministic}).workers, 1u);
}

TEST(Options, StackSizeFromEnvironmentWithSuffix) {
  env_guard g("GPMX_FIBER_STACK", "256K");
  EXPECT_EQ(cpu::resolve({}).fiber_stack_bytes, 256u * 1024u);
}

TEST(Options, BadEnvironmentValuesNameTheVariable) {
  {
    env_guard g("GPMX_WORKERS", "lots");
    try {
      cpu::resolve({});
      FAIL();
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find("GPMX_WORKERS='lots'"), std::string::npos);
    }
  }
  env_guard g("GPMX_FIBER_STACK", "12Q");
  EXPECT_THROW(cpu::resolve({}), config_error);
  EXPECT_THROW(cpu::resolve({.fiber_stack_bytes = 1024}), config_error);
}

TEST(Options, DeepRecursionFitsALargerStack) {
  cpu::executor ex({.workers = 1, .fiber_stack_bytes = 1 << 20});
  std::vector<int> out(64, 0);
  ex.launch({dim3(1), dim3(64)}, [](auto& t, int* o) {
    char buf[200 * 1024];  // would overflow the default 64 KiB stack
    buf[0] = char(t.thread_rank());
    buf[sizeof buf - 1] = 1;
    t.syncthreads();
    o[t.thread_rank()] = buf[0] + buf[sizeof buf - 1];
  }, out.data());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[std::size_t(i)], i + 1);
}

}  // namespace
