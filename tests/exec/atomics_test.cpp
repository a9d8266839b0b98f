#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "kernels/exec_kernels.hpp"

namespace {
using namespace gpmx;

TEST(Atomics, EveryOperationUnderContentionAcrossBlocksAndWorkers) {
  for (unsigned workers : {1u, 2u}) {
    cpu::executor ex({.workers = workers});
    const std::uint64_t n = 64 * 256;
    std::vector<std::uint64_t> w(10, 0);
    w[3] = ~std::uint64_t(0);
    w[6] = ~std::uint64_t(0);
    std::vector<std::uint32_t> inc(2, 0);
    ex.launch({dim3(64), dim3(256), 0, "atomics"}, test_kernels::atomics_contention{}, w.data(), inc.data());
    std::uint64_t xr = 0, sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) xr ^= i, sum += i;
    EXPECT_EQ(w[0], n);
    EXPECT_EQ(w[1], std::uint64_t(0) - 2 * n);
    EXPECT_EQ(w[2], n - 1);
    EXPECT_EQ(w[3], 5u);
    EXPECT_EQ(w[4], ~std::uint64_t(0));
    EXPECT_EQ(w[5], xr);
    EXPECT_EQ(w[6], 0u);
    EXPECT_EQ(w[7], sum);
    EXPECT_EQ(w[8], 42u);
    EXPECT_EQ(w[9], sum);
    // inc wraps to 0 after 99: n increments from 0 land on n % 100.
    EXPECT_EQ(inc[0], n % 100);
    // dec from 0 goes to 99 and counts down: n decrements land on (100 - n % 100) % 100.
    EXPECT_EQ(inc[1], (100 - n % 100) % 100);
  }
}

TEST(Atomics, IncAndDecFollowCudaWrapRules) {
  cpu::executor ex({.workers = 1});
  std::vector<std::uint32_t> w = {7, 7, 0, 12};
  std::vector<std::uint32_t> old(4, 0);
  ex.launch({dim3(1), dim3(1)}, [](auto& t, std::uint32_t* p, std::uint32_t* o) {
    o[0] = t.atomic_inc(&p[0], 7u);  // old >= limit: wraps to 0
    o[1] = t.atomic_inc(&p[1], 8u);  // 7 -> 8
    o[2] = t.atomic_dec(&p[2], 5u);  // old == 0: becomes limit
    o[3] = t.atomic_dec(&p[3], 5u);  // old > limit: becomes limit
  }, w.data(), old.data());
  EXPECT_EQ(w, (std::vector<std::uint32_t>{0, 8, 5, 5}));
  EXPECT_EQ(old, (std::vector<std::uint32_t>{7, 7, 0, 12}));
}

TEST(Atomics, FloatingPointAddAndCasReturnTheOldValue) {
  cpu::executor ex({.workers = 2});
  float f = 0.0f;
  int x = 5;
  std::vector<int> cas_old(1, -1);
  ex.launch({dim3(8), dim3(128)}, [](auto& t, float* pf, int* px, int* o) {
    t.atomic_add(pf, 0.5f);
    if (t.global_id() == 0) o[0] = t.atomic_cas(px, 5, 9);
  }, &f, &x, cas_old.data());
  EXPECT_EQ(f, 512.0f);
  EXPECT_EQ(x, 9);
  EXPECT_EQ(cas_old[0], 5);
}

}  // namespace
