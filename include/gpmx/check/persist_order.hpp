#pragma once
// The persist memory order pmo of one trace under one model
// (docs/persistency-models.md, section 2), on granule-stores: each pm_write
// split into the aligned granules it covers. Granule-store ids follow trace
// order (then address), so every pmo edge goes from a smaller id to a larger
// one and "issued before event c" is a prefix of the ids.
//
// The transitive closure is computed once: each granule-store keeps the set
// of all its pmo-predecessors. Sets are shared between stores whose sets are
// equal (a thread's stores between two ordering operations, with no
// coherence predecessor, share one), so memory is (distinct sets) x N/8
// bytes for N granule-stores, at worst N^2/8.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gpmx/check/model.hpp"
#include "gpmx/check/store_set.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::check {

inline constexpr std::uint64_t never = ~std::uint64_t(0);

struct order_options {
  persist_model model = persist_model::sbrp;
  std::uint32_t granularity = 8;  // bytes: 4, 8 or 64
  // Refuse traces with more granule-stores than this (the closure is
  // quadratic in the worst case): the error says how many there were.
  std::size_t max_granule_stores = std::size_t(1) << 16;
};

// One granule of one PM store.
struct granule_store {
  std::uint64_t event = 0;    // index of the pm_write in the trace
  std::uint64_t granule = 0;  // aligned address of the granule
  std::uint64_t first = 0;    // the bytes of the granule this store wrote: [first, end)
  std::uint64_t end = 0;
  std::uint32_t thread = 0;   // dense thread id (see persist_order::thread_of_event)
};

class persist_order {
 public:
  // Builds pmo; throws check_error when the options or the trace are unusable.
  persist_order(const trace::trace& t, const order_options& options);

  persist_model model() const { return options_.model; }
  std::uint32_t granularity() const { return options_.granularity; }
  std::size_t size() const { return nodes_.size(); }
  std::size_t event_count() const { return event_count_; }
  const granule_store& node(std::size_t id) const { return nodes_[id]; }

  // Every granule-store pmo-before `id` (not `id` itself).
  const store_set& predecessors(std::size_t id) const { return *preds_[id]; }
  bool ordered(std::size_t before, std::size_t after) const { return predecessors(after).contains(before); }

  // The index of the first event at which `id` is made durable by a
  // durability point (its thread's gpm_persist or dfence, its kernel's end;
  // under strict the store itself), or `never`.
  std::uint64_t durable_at(std::size_t id) const { return durable_at_[id]; }
  // Granule-stores of events [0, position): a prefix of the ids.
  std::size_t issued_before(std::uint64_t position) const;

  // The granule-stores of one event: ids [first, second).
  std::pair<std::size_t, std::size_t> nodes_of(std::uint64_t event) const {
    return {first_node_of_event_[event], first_node_of_event_[event + 1]};
  }

  // Dense thread id of an event of a GPU thread ((launch, block, warp, lane)).
  std::uint32_t thread_of_event(std::uint64_t event) const { return thread_of_event_[event]; }

  // Adds every pmo-predecessor of the set's members (the set becomes pmo-closed).
  void close(store_set& s) const;
  bool is_closed(const store_set& s) const;
  store_set empty_set() const { return store_set(nodes_.size()); }

 private:
  friend class order_builder;
  order_options options_;
  std::size_t event_count_ = 0;
  std::vector<granule_store> nodes_;
  std::vector<std::shared_ptr<const store_set>> preds_;
  std::vector<std::uint64_t> durable_at_;
  std::vector<std::uint32_t> thread_of_event_;
  std::vector<std::size_t> first_node_of_event_;  // size event_count_ + 1
};

}  // namespace gpmx::check
