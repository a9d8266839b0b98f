#pragma once
// The memory behind one queue pair (queue_pair.hpp): entries, turn counters,
// marks, the command-id bitmap and the counters, in one zeroed allocation
// that kernel threads and the controller share.
#include <cstddef>
#include <cstdint>
#include <memory>

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
  struct free_deleter {
    void operator()(void* p) const;
  };
  std::unique_ptr<std::byte, free_deleter> memory_;
  queue_pair_view view_;
};

}  // namespace gpmx::storage
