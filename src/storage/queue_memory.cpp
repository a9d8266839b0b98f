#include "gpmx/storage/queue_memory.hpp"

#include <memory>
#include <new>

#include <fmt/format.h>

#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

namespace {
// Hands out 64-byte aligned pieces of one allocation (each counter its own line).
struct carver {
  std::size_t used = 0;
  std::size_t take(std::size_t bytes) {
    const std::size_t at = used;
    used += (bytes + 63) / 64 * 64;
    return at;
  }
};
}  // namespace

queue_pair_memory::queue_pair_memory(std::uint16_t qid, queue_options o) {
  if (o.depth < 2 || o.depth > 65536)
    throw storage_error(error_code::config, fmt::format("queue pair {}: depth {} is not 2 to 65536", qid, o.depth));
  if (o.first_ticket % o.depth != 0)
    throw storage_error(error_code::config, fmt::format("queue pair {}: first ticket {} is not a multiple of the depth {}",
                                                        qid, o.first_ticket, o.depth));
  const std::size_t d = o.depth;
  carver h, k;  // host-visible, kernel memory
  const std::size_t sq = h.take(d * sizeof(nvme_command)), cq = h.take(d * sizeof(nvme_completion)),
                    sq_doorbell = h.take(4), cq_doorbell = h.take(4);
  const std::size_t turn = k.take(d * 4), sq_mark = k.take(d * 4), cq_mark = k.take(d * 4),
                    cid_bits = k.take(command_ids / 8), ticket = k.take(8), sq_tail = k.take(8), sq_head = k.take(8),
                    cq_head = k.take(8), cid_hint = k.take(4), sq_lock = k.take(4), cq_lock = k.take(4);
  const std::size_t shared_bytes = (h.used + 4095) / 4096 * 4096, private_bytes = (k.used + 4095) / 4096 * 4096;
  try {
    shared_ = std::make_unique<host_visible_block>(shared_bytes, 4096);
    private_ = std::make_unique<kernel_block>(private_bytes, 4096);
  } catch (const std::bad_alloc&) {
    throw storage_error(error_code::capacity,
                        fmt::format("queue pair {}: cannot allocate {} bytes", qid, shared_bytes + private_bytes));
  }
  auto in_shared = [m = shared_->data()](std::size_t off) { return static_cast<void*>(m + off); };
  auto at = [m = private_->data()](std::size_t off) { return static_cast<void*>(m + off); };
  view_.sq = static_cast<nvme_command*>(in_shared(sq));
  view_.cq = static_cast<nvme_completion*>(in_shared(cq));
  view_.sq_doorbell = static_cast<std::uint32_t*>(in_shared(sq_doorbell));
  view_.cq_doorbell = static_cast<std::uint32_t*>(in_shared(cq_doorbell));
  view_.turn = static_cast<std::uint32_t*>(at(turn));
  view_.sq_mark = static_cast<std::uint32_t*>(at(sq_mark));
  view_.cq_mark = static_cast<std::uint32_t*>(at(cq_mark));
  view_.cid_bits = static_cast<std::uint32_t*>(at(cid_bits));
  view_.ticket = static_cast<std::uint64_t*>(at(ticket));
  view_.sq_tail = static_cast<std::uint64_t*>(at(sq_tail));
  view_.sq_head = static_cast<std::uint64_t*>(at(sq_head));
  view_.cq_head = static_cast<std::uint64_t*>(at(cq_head));
  view_.cid_hint = static_cast<std::uint32_t*>(at(cid_hint));
  view_.sq_lock = static_cast<std::uint32_t*>(at(sq_lock));
  view_.cq_lock = static_cast<std::uint32_t*>(at(cq_lock));
  view_.depth = o.depth;
  view_.qid = qid;
  view_.host_scope = shared_->apart_from_kernel_memory() ? scope::system : scope::device;
  // Start as if first_ticket commands had gone through already.
  *view_.ticket = *view_.sq_tail = *view_.sq_head = o.first_ticket;
  const auto turn0 = std::uint32_t(2 * (o.first_ticket / o.depth));
  for (std::size_t i = 0; i < d; ++i) view_.turn[i] = turn0;
}

}  // namespace gpmx::storage
