#pragma once
// Deliberately wrong HCL inserts, for seeded bugs only (docs/workloads.md,
// "Seeded bugs"). Each is pm::hcl_view::insert with one ordering mistake a
// careless programmer could make. They write the same words to the same
// places as insert, so the correct recovery code reads what they leave.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/log_fail.hpp"
#include "gpmx/pm/ordering.hpp"

namespace gpmx::apps::careless {
namespace detail {

// The thread's slot and tail, after the checks insert makes.
template <class Ctx>
GPMX_HD std::uint64_t slot_for(Ctx& t, const pm::hcl_view& log, std::uint32_t words) {
  if (t.block_rank() >= log.blocks || t.thread_rank() >= log.threads)
    pm::detail::log_fail(pm::errc::log_geometry, "HCL", "thread {} of block {} lies outside the log's geometry",
                         t.thread_rank(), t.block_rank());
  const std::uint64_t s = log.slot(t.block_rank(), t.thread_rank());
  if (log.tails[s] > log.capacity_words)
    pm::detail::log_fail(pm::errc::corrupt_value, "HCL", "a tail holds {} words, past the slot's {}", log.tails[s],
                         log.capacity_words);
  if (log.tails[s] + words > log.capacity_words)
    pm::detail::log_fail(pm::errc::log_full, "HCL", "entry of {} words does not fit: {} words of the slot are used",
                         words, log.tails[s]);
  return s;
}

// The entry's words at positions [tail, tail + words) of the thread's stream.
template <class Ctx>
GPMX_HD void write_entry(Ctx& t, const pm::hcl_view& log, std::uint32_t tail, const void* src, std::size_t bytes) {
  const auto* in = static_cast<const unsigned char*>(src);
  for (std::size_t k = 0; k * 4 < bytes; ++k) {
    std::uint32_t w = 0;
    std::memcpy(&w, in + k * 4, bytes - k * 4 < 4 ? bytes - k * 4 : 4);
    std::uint32_t* dst = log.word(t.block_rank(), t.thread_rank(), tail + std::uint32_t(k));
    *dst = w;
    gpmx::pm::note_pm_store(t, log.domain, dst, 4);
  }
}

template <class Ctx>
GPMX_HD void write_tail(Ctx& t, const pm::hcl_view& log, std::uint64_t s, std::uint32_t tail) {
  log.tails[s] = tail;
  gpmx::pm::note_pm_store(t, log.domain, &log.tails[s], 4);
}

}  // namespace detail

// The entry, ordered before its tail, then the tail, and nothing after it:
// insert's last ordering is forgotten, so the caller's next store (the
// in-place update the entry protects) may persist before the tail that names
// the entry.
template <class Ctx>
GPMX_HD void insert_unfenced_tail(Ctx& t, const pm::hcl_view& log, const void* src, std::size_t bytes,
                                  pm::ordering o) {
  const auto words = std::uint32_t((bytes + 3) / 4);
  const std::uint64_t s = detail::slot_for(t, log, words);
  const std::uint32_t tail = log.tails[s];
  detail::write_entry(t, log, tail, src, bytes);
  pm::order_persists(t, o);
  detail::write_tail(t, log, s, tail + words);
}

// The tail first ("reserve the room, then fill it"), ordered before the
// entry: a crash between them leaves a tail that names words never written,
// which recovery then undoes with.
template <class Ctx>
GPMX_HD void insert_tail_first(Ctx& t, const pm::hcl_view& log, const void* src, std::size_t bytes,
                               pm::ordering o) {
  const auto words = std::uint32_t((bytes + 3) / 4);
  const std::uint64_t s = detail::slot_for(t, log, words);
  const std::uint32_t tail = log.tails[s];
  detail::write_tail(t, log, s, tail + words);
  pm::order_persists(t, o);
  detail::write_entry(t, log, tail, src, bytes);
  pm::order_persists(t, o);
}

}  // namespace gpmx::apps::careless
