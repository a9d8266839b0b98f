// gpu_model as an observer: pool mappings (which addresses are PM), the
// durability tracker's view of each PM write as a kernel thread or the host
// makes it (crash images), and every event passed on to a passenger
// observer (a trace recorder beside the timing model).
#include <fmt/format.h>

#include <algorithm>

#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::sim {

void gpu_model::track_durability(durability_tracker* t) {
  tracker_ = t;
  mem_.set_pm_write_listener(t);
}

void gpu_model::pool_mapped(const void* base, std::uint64_t length, std::string_view path) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  pm_ranges_.emplace_back(b, b + length);
  if (tracker_) tracker_->log().mapped(base, length, path, totals_.end);  // host code runs between launches
  if (passenger_) passenger_->pool_mapped(base, length, path);
}

void gpu_model::pool_unmapped(const void* base) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  std::erase_if(pm_ranges_, [b](const auto& r) { return r.first == b; });
  if (tracker_) tracker_->log().unmapped(base);
  if (passenger_) passenger_->pool_unmapped(base);
}

void gpu_model::kernel_begin(std::string_view name, dim3 grid, dim3 block, const source_loc& site) {
  if (passenger_) passenger_->kernel_begin(name, grid, block, site);
}

void gpu_model::kernel_end(std::string_view name) {
  if (passenger_) passenger_->kernel_end(name);
}

void gpu_model::access(const thread_coords& c, mem_space s, access_kind k, const void* p, std::size_t bytes,
                       const source_loc& loc) {
  // The timed schedule reports every space; the passenger gets what it asks for.
  if (passenger_ && (passenger_->observed_spaces() & space_bit(s))) passenger_->access(c, s, k, p, bytes, loc);
  if (!tracker_ || k != access_kind::store || s != mem_space::pm) return;
  if (!tracker_->log().inside(p, bytes))
    throw error(error_code::usage,
                fmt::format("crash images: a PM store of {} bytes at {} is in no pool this timing model saw "
                            "mapped (pools must be opened while its executor is the host observer)",
                            bytes, p));
  // Staged with the lane until its warp issues the store.
  tracker_->stored(lane_key(c.block, c.warp, c.lane), p, std::uint32_t(bytes));
}

void gpu_model::tracked_write(const thread_coords& c, const void* p, std::size_t bytes) {
  if (space_of(p) != mem_space::pm) return;
  const std::uint64_t lane = lane_key(c.block, c.warp, c.lane);
  if (!tracker_->wrote(lane, p, std::uint32_t(bytes))) tracker_->stored(lane, p, std::uint32_t(bytes), false);
}

void gpu_model::atomic(const thread_coords& c, atomic_op op, scope s, const void* p, std::size_t bytes,
                       std::uint64_t operand, std::uint64_t result, const source_loc& loc) {
  if (passenger_) passenger_->atomic(c, op, s, p, bytes, operand, result, loc);
  if (tracker_ && op != atomic_op::load) tracked_write(c, p, bytes);
}

void gpu_model::flag(const thread_coords& c, flag_op op, scope s, const void* p, std::size_t bytes,
                     std::uint64_t value, const source_loc& loc) {
  if (passenger_) passenger_->flag(c, op, s, p, bytes, value, loc);
  if (tracker_ && op == flag_op::release) tracked_write(c, p, bytes);
}

void gpu_model::ordering(const thread_coords& c, ordering_op op, const source_loc& loc) {
  if (passenger_) passenger_->ordering(c, op, loc);
}

void gpu_model::persist_range(const thread_coords& c, const void* p, std::size_t bytes, const source_loc& loc) {
  if (passenger_) passenger_->persist_range(c, p, bytes, loc);
}

void gpu_model::barrier(const thread_coords& c, const source_loc& loc) {
  if (passenger_) passenger_->barrier(c, loc);
}

void gpu_model::warp_collective(const thread_coords& c, warp_op op, std::uint32_t mask, const source_loc& loc) {
  if (passenger_) passenger_->warp_collective(c, op, mask, loc);
}

void gpu_model::schedule_choice(std::uint64_t block, std::uint32_t choices, std::uint32_t picked) {
  if (passenger_) passenger_->schedule_choice(block, choices, picked);
}

void gpu_model::agent_step(std::string_view agent) {
  if (passenger_) passenger_->agent_step(agent);
}

void gpu_model::agent_begin(std::string_view agent) {
  if (passenger_) passenger_->agent_begin(agent);
}

void gpu_model::agent_end(std::string_view agent) {
  if (passenger_) passenger_->agent_end(agent);
}

void gpu_model::host_persist(const void* p, std::uint64_t bytes, const source_loc& loc) {
  if (passenger_) passenger_->host_persist(p, bytes, loc);
  if (agent_stepping_) {  // an agent beside the launch: timed as host write-backs
    const picos durable = mem_.host_pm_write(bytes, agent_now_);
    if (tracker_) tracker_->host_persisted(p, bytes, durable);
    if (grouped_) group_done_ = std::max(group_done_, durable);
    else agent_now_ = durable;
    return;
  }
  // A kernel thread's persists reach the pool's mapping too (the cpu
  // executor's own durability); in the timed mode the model says when
  // those are durable, so only host code's count here.
  if (tracker_ && !in_launch_) tracker_->host_persisted(p, bytes, totals_.end);
}

void gpu_model::host_persists_begin() {
  if (passenger_) passenger_->host_persists_begin();
  grouped_ = true;
  group_done_ = agent_now_;
}

void gpu_model::host_persists_end() {
  if (passenger_) passenger_->host_persists_end();
  grouped_ = false;
  agent_now_ = std::max(agent_now_, group_done_);
}

void gpu_model::host_detached() {
  if (passenger_) passenger_->host_detached();
}

}  // namespace gpmx::sim
