// Two properties of BaM's protocol that the other tests imply but do not
// show directly: the submission doorbell only moves forward and only over
// entries that are completely written (watched at every step of the
// device, before it fetches), and a pinned line is never evicted however
// many other pages stream through the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <vector>

#include "gpmx/storage/cache_memory.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

// Steps the controller after looking at what its doorbell exposes: every
// entry between the last doorbell it saw and the new one must hold a
// whole command, and the unwrapped tail must never go back nor lap the
// entries the device has not fetched.
class doorbell_watcher final : public agent {
 public:
  doorbell_watcher(controller& inner, queue_pair_view q) : inner_(inner), q_(q), seen_(*q.sq_tail) {}
  step_result step() override {
    const std::uint64_t tail = std::atomic_ref<std::uint64_t>(*q_.sq_tail).load(std::memory_order_acquire);
    const std::uint32_t bell = std::atomic_ref<std::uint32_t>(*q_.sq_doorbell).load(std::memory_order_acquire);
    if (tail < seen_ || tail - seen_ >= q_.depth || bell != tail % q_.depth) ++violations;
    for (std::uint64_t p = seen_; p < tail; ++p) {
      const nvme_command& c = q_.sq[p % q_.depth];
      exposed.push_back(c.slba());
      if (c.opcode != std::uint8_t(nvme_opcode::read) || c.blocks() != 1 || c.prp1 == 0) ++violations;
    }
    seen_ = std::max(seen_, tail);
    return inner_.step();
  }
  std::string_view name() const override { return "doorbell-watcher"; }

  std::vector<std::uint64_t> exposed;
  unsigned violations = 0;

 private:
  controller& inner_;
  queue_pair_view q_;
  std::uint64_t seen_;
};

struct read_block_g {
  template <class Ctx>
  void operator()(Ctx& t, queue_pair_view q, std::byte* buffers, std::uint32_t* failed) const {
    const std::uint64_t g = t.global_id();
    const auto cmd = make_io_command(nvme_opcode::read, g, 1, buffers + g * 512);
    if (await_completion(t, q, submit(t, q, cmd)).status_code() != 0) t.atomic_add(failed, 1u);
  }
};

TEST(NvmeQueues, TheDoorbellOnlyMovesForwardOverCompleteEntries) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    cpu::executor ex(deterministic(seed));
    scratch_dir dir;
    write_pattern(dir / "dev", 0, 1 << 20);
    block_device dev(dir / "dev", "dev");
    queue_pair_memory memory(1, {.depth = 8, .first_ticket = (1ull << 32) - 16});
    controller ctl(dev, {memory.view()}, {.deterministic = true, .seed = seed});
    doorbell_watcher watcher(ctl, memory.view());
    auto on = ex.attach(watcher);
    const unsigned n = 3 * 64;
    std::unique_ptr<std::byte, void (*)(void*)> buffers(static_cast<std::byte*>(std::aligned_alloc(4096, n * 512)),
                                                        std::free);
    std::uint32_t failed = 0;
    ex.launch({dim3(3), dim3(64), 0, "read_block_g"}, read_block_g{}, memory.view(), buffers.get(), &failed);
    EXPECT_EQ(failed, 0u);
    EXPECT_EQ(watcher.violations, 0u) << "seed " << seed;
    std::vector<std::uint64_t> got = watcher.exposed;
    std::sort(got.begin(), got.end());
    std::vector<std::uint64_t> want(n);
    for (unsigned g = 0; g < n; ++g) want[g] = g;
    EXPECT_EQ(got, want) << "every command exposed exactly once, seed " << seed;
  }
}

// Thread 0 pins page 3 and holds it while the others stream 40 pages
// through the rest of a 4-line cache; then it checks the page is still in
// its slot, valid, with the file's data.
struct hold_while_others_stream {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint32_t* pinned, std::uint32_t* streamed,
                  std::uint32_t* ok) const {
    constexpr std::uint64_t words = 4096 / 8;
    if (t.global_id() == 0) {
      array_cursor<std::uint64_t> c(a);
      const std::uint64_t first = c.read(t, 3 * words);
      const std::uint32_t slot = t.atomic_load(&a.cache.ranges[0].page_slot[3], memory_order::acquire);
      t.atomic_store(pinned, 1u, memory_order::release);
      t.spin_wait([&] { return t.atomic_load(streamed, memory_order::acquire) == t.global_count() - 1; });
      const std::uint32_t state = t.atomic_load(&a.cache.ranges[0].state[3], memory_order::acquire);
      const bool same_slot = t.atomic_load(&a.cache.ranges[0].page_slot[3], memory_order::acquire) == slot &&
                             t.atomic_load(&a.cache.slot_owner[slot], memory_order::acquire) == 3 + 1;
      *ok = (state & page_valid) != 0 && same_slot && c.read(t, 3 * words + 7) == pattern(0, 3 * words + 7) &&
            first == pattern(0, 3 * words);
      c.done(t);
      return;
    }
    t.spin_wait([&] { return t.atomic_load(pinned, memory_order::acquire) == 1; });
    for (std::uint64_t k = 0; k < 40; ++k) {
      const std::uint64_t page = 4 + (t.global_id() + k) % 40;
      (void)a.read_alone(t, page * words);
    }
    t.atomic_add(streamed, 1u, memory_order::release);
  }
};

TEST(BamCache, APinnedLineIsNeverEvicted) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(8) : parallel());
    storage_rig rig(ex, {.device_bytes = 64 * 4096, .deterministic = det, .seed = 8});
    page_cache cache({.line_bytes = 4096, .lines = 4});
    const auto a = cache.array<std::uint64_t>(cache.add_range(64, 0, rig.device_list(), rig.queues), 64 * 512);
    std::uint32_t pinned = 0, streamed = 0, ok = 0;
    ex.launch({dim3(1), dim3(8), 0, "hold_while_others_stream"}, hold_while_others_stream{}, a, &pinned, &streamed,
              &ok);
    EXPECT_EQ(ok, 1u) << (det ? "deterministic" : "parallel");
    EXPECT_GT(cache.counters().evictions, 30u) << "the other pages did stream through";
  }
}

}  // namespace
