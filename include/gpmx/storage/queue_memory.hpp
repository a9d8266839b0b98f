#pragma once
// The memory behind one queue pair (queue_pair.hpp), in two zeroed blocks.
// What the controller, a host agent, reads and writes while kernels run (the
// entries of both queues and the two doorbells) is host-visible memory
// (kernel_memory.hpp): pinned host memory beside a GPU, where the doorbells
// and completions take system scope. What only kernel threads touch (turn
// counters, marks, the command-id bitmap, tickets, heads, tails, locks) is
// kernel memory: beside a GPU its atomics then stay on the GPU instead of
// crossing PCIe (BaM keeps them in GPU memory too).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/storage/queue_pair.hpp"

namespace gpmx::storage {

struct queue_options {
  std::uint32_t depth = 1024;      // entries per queue, 2 to 65536
  std::uint64_t first_ticket = 0;  // a multiple of depth; tests start near 2^32
};

class queue_pair_memory {
 public:
  queue_pair_memory(std::uint16_t qid, queue_options o = {});
  const queue_pair_view& view() const { return view_; }
  std::uint32_t depth() const { return view_.depth; }

 private:
  std::unique_ptr<host_visible_block> shared_;  // sq, cq, doorbells
  std::unique_ptr<kernel_block> private_;       // the kernel threads' protocol state
  queue_pair_view view_;
};

}  // namespace gpmx::storage
