#include "gpmx/stm/tx_heap.hpp"

#include <cstring>
#include <vector>
#include <fmt/format.h>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/errors.hpp"

namespace gpmx::stm {
namespace {

constexpr std::uint64_t state_bytes = 64;

pm::region sized(pm::pool& pool, const char* name, std::uint64_t want) {
  pm::region r = pool.find(name);
  if (r.size() < want)
    throw pm::pm_error(pm::errc::corrupt_value,
                       fmt::format("{}: region {} holds {} bytes, the recorded parameters need {}",
                                   pool.path().string(), name, r.size(), want));
  return r;
}

std::uint64_t home_bytes(std::uint32_t words) { return (std::uint64_t(words) * 4 + 63) / 64 * 64; }

std::uint64_t starts_bytes(const log_geometry& g) { return g.wraps ? std::uint64_t(g.streams()) * 8 : 0; }

}  // namespace

std::uint64_t tx_heap_bytes(std::uint32_t words, const log_geometry& g) {
  return home_bytes(words) + g.entries() * sizeof(log_entry) + state_bytes + starts_bytes(g);
}

void tx_heap::create(pm::pool& pool, std::uint32_t words, const log_geometry& g) {
  pool.create_region("tx_home", home_bytes(words)).persist();
  pool.create_region("tx_log", g.entries() * sizeof(log_entry)).persist();
  pool.create_region("tx_state", state_bytes).persist();
  if (g.wraps) pool.create_region("tx_starts", starts_bytes(g)).persist();
}

tx_heap::tx_heap(pm::pool& pool, std::uint32_t words, const log_geometry& g)
    : pool_(&pool),
      words_(words),
      geometry_(g),
      home_(sized(pool, "tx_home", std::uint64_t(words) * 4)),
      log_(sized(pool, "tx_log", g.entries() * sizeof(log_entry))),
      state_(sized(pool, "tx_state", state_bytes)) {
  if (g.wraps) starts_.emplace(sized(pool, "tx_starts", starts_bytes(g)));
}

tx_heap tx_heap::open(pm::pool& pool, std::uint32_t words, const log_geometry& g) {
  tx_heap h(pool, words, g);
  // Sequence numbers are 32-bit in the records: a larger word was never written.
  for (unsigned i : {0u, 2u})
    if (h.state(i) > 0xffffffffull)
      throw pm::pm_error(pm::errc::corrupt_value,
                         fmt::format("{}: region tx_state word {} holds {}, past any sequence number",
                                     pool.path().string(), i, h.state(i)));
  return h;
}

std::uint64_t tx_heap::state(unsigned i) const {
  std::uint64_t v;
  std::memcpy(&v, state_.data() + 8 * i, 8);
  return v;
}

void tx_heap::set_state(unsigned i, std::uint64_t v) {
  std::memcpy(state_.data() + 8 * i, &v, 8);
  state_.persist(8 * i, 8);
  crash_trigger::point();
}

tx_log tx_heap::log() const {
  return tx_log{log_.span<log_entry>().subspan(0, geometry_.entries()), geometry_, epoch()};
}

void tx_heap::promise_durable(std::uint64_t seq) { set_state(2, seq); }

std::string tx_heap::log_name() const { return pool_->path().string() + " region tx_log"; }

log_scan tx_heap::scan() const {
  return scan_log(log_entries(), geometry_, epoch(), applied_upto(), words_, log_name(), stream_starts());
}

std::span<const std::uint64_t> tx_heap::stream_starts() const {
  if (!starts_) return {};
  return starts_->as<const std::uint64_t>().first(geometry_.streams());
}

namespace {
// Persists the lines of the sorted element indices of region r (elements
// of `bytes` each) as one group, through the pool's domain.
void persist_elements(const pm::region& r, std::span<const std::uint32_t> sorted, std::uint32_t bytes) {
  std::vector<std::uintptr_t> lines;
  const auto* base = reinterpret_cast<const std::byte*>(r.data());
  for (std::uint32_t i : sorted) {
    const std::uintptr_t line = reinterpret_cast<std::uintptr_t>(base + std::uint64_t(i) * bytes) / persist_line_bytes;
    if (lines.empty() || lines.back() != line) lines.push_back(line);
  }
  if (!lines.empty()) r.domain()->persist_lines(lines.data(), lines.size());
}
}  // namespace

void tx_heap::persist_home_words(std::span<const std::uint32_t> sorted_words) {
  persist_elements(home_, sorted_words, 4);
  crash_trigger::point();
}

void tx_heap::set_applied_upto(std::uint64_t seq) { set_state(0, seq); }

void tx_heap::set_stream_starts(std::span<const std::uint32_t> sorted_streams, std::span<const std::uint64_t> values) {
  if (sorted_streams.empty() || !starts_) return;
  std::uint64_t* starts = starts_->as<std::uint64_t>().data();
  for (std::size_t k = 0; k < sorted_streams.size(); ++k) starts[sorted_streams[k]] = values[k];
  persist_elements(*starts_, sorted_streams, 8);
  crash_trigger::point();
}

void tx_heap::reset_stream_starts() {
  if (!starts_) return;
  std::memset(starts_->data(), 0, starts_->size());
  starts_->persist();
  crash_trigger::point();
}

checkpoint_report tx_heap::checkpoint(bool truncate_first) {
  const log_scan s = scan();
  checkpoint_report r;
  r.gap_at = s.gap_at;
  r.streams_cut = s.streams_cut;
  r.discarded = s.records.size() - s.prefix;
  r.applied = s.prefix;
  const std::uint64_t upto = apply_prefix(s, home(), applied_upto());
  r.applied_upto = upto;
  if (truncate_first) {  // the seeded bug: the log is gone before the home image is durable
    set_state(0, upto);
    if (geometry_.wraps) reset_stream_starts();
    set_state(1, epoch() + 1);
    home_.persist();
    crash_trigger::point();
    return r;
  }
  home_.persist();
  crash_trigger::point();
  if (upto != applied_upto()) set_state(0, upto);
  // Rings start over at position 0 in the next epoch: durable before the
  // epoch moves on, so no launch writes from 0 while the starts say otherwise.
  if (geometry_.wraps) reset_stream_starts();
  set_state(1, epoch() + 1);
  return r;
}

}  // namespace gpmx::stm
