#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"

namespace {
using namespace gpmx;

TEST(Errors, ExceptionReachesTheCallerWithCoordinates) {
  for (unsigned workers : {1u, 2u}) {
    cpu::executor ex({.workers = workers});
    try {
      ex.launch({dim3(4, 3), dim3(8, 4), 0, "thrower"}, [](auto& t) {
        if (t.block_idx() == dim3(2, 1, 0) && t.thread_idx() == dim3(5, 3, 0)) throw std::runtime_error("boom");
      });
      FAIL() << "no exception";
    } catch (const kernel_error& e) {
      EXPECT_EQ(e.block(), dim3(2, 1, 0));
      EXPECT_EQ(e.thread(), dim3(5, 3, 0));
      EXPECT_NE(std::string(e.what()).find("kernel 'thrower': block (2,1,0) thread (5,3,0): boom"),
                std::string::npos)
          << e.what();
      EXPECT_THROW(std::rethrow_exception(e.cause()), std::runtime_error);
    }
  }
}

TEST(Errors, ThrowWhileOthersWaitUnwindsThem) {
  cpu::executor ex({.workers = 2});
  std::atomic<int> destroyed{0};
  struct guard {
    std::atomic<int>* n;
    ~guard() { n->fetch_add(1); }
  };
  EXPECT_THROW(ex.launch({dim3(3), dim3(64), 0, "unwind"}, [](auto& t, std::atomic<int>* n) {
    guard g{n};
    if (t.thread_rank() == 40) throw std::logic_error("thread 40 fails");
    t.syncthreads();
  }, &destroyed), kernel_error);
  // Every thread that started unwound its frame: none leaked a suspended stack.
  EXPECT_GE(destroyed.load(), 41);
  // The executor is usable afterwards.
  std::vector<int> out(64, 0);
  ex.launch({dim3(1), dim3(64)}, [](auto& t, int* o) {
    t.syncthreads();
    o[t.thread_rank()] = 1;
  }, out.data());
  for (int v : out) EXPECT_EQ(v, 1);
}

TEST(Errors, DeadlockNamesKernelBlockAndEachWaiter) {
  cpu::executor ex({.workers = 1});
  try {
    // Lane 0 waits at the block barrier while lane 1 waits for lane 0 in a
    // warp operation: neither can proceed.
    ex.launch({dim3(1), dim3(2), 0, "stuck"}, [](auto& t) {
      if (t.thread_rank() == 0) t.syncthreads();
      else t.syncwarp(0x3u);
    });
    FAIL() << "no deadlock reported";
  } catch (const deadlock_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel 'stuck'"), std::string::npos) << what;
    EXPECT_NE(what.find("block (0,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("thread (0,0,0) (warp 0 lane 0) waits in the block barrier"), std::string::npos) << what;
    EXPECT_NE(what.find("thread (1,0,0) (warp 0 lane 1) waits in syncwarp with mask 0x00000003"),
              std::string::npos)
        << what;
  }
}

TEST(Errors, NestedLaunchIsRejected) {
  cpu::executor ex({.workers = 1});
  EXPECT_THROW(ex.launch({dim3(1), dim3(1)}, [&ex](auto&) { ex.launch({dim3(1), dim3(1)}, [](auto&) {}); }),
               kernel_error);
}

TEST(Errors, StaticSharedOverflowIsReported) {
  cpu::executor ex({.workers = 1});
  EXPECT_THROW(ex.launch({dim3(1), dim3(1)}, [](auto& t) {
    GPMX_SHARED(t, double, big, 7000);  // 56000 bytes > 48 KiB
    big[0] = 1.0;
  }), kernel_error);
}

}  // namespace
