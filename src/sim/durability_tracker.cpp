#include "gpmx/sim/durability_tracker.hpp"

#include <algorithm>

namespace gpmx::sim {

durability_tracker::durability_tracker(std::uint32_t line_bytes, std::uint32_t sector_bytes)
    : line_bytes_(line_bytes), sector_bytes_(sector_bytes) {}

template <class Put>
void durability_tracker::split(const void* p, std::uint32_t bytes, std::uint64_t at, Put put) {
  // One piece per sector: a write-back carries whole sectors, so a store
  // across a sector boundary can be half durable.
  const auto* b = static_cast<const std::byte*>(p);
  std::uint32_t done = 0;
  while (done < bytes) {
    const std::uint64_t a = at + done;
    const std::uint32_t room = sector_bytes_ - std::uint32_t(a % sector_bytes_);
    const std::uint32_t n = std::min(room, bytes - done);
    put(waiting_piece{log_.take(b + done, n), a});
    done += n;
  }
}

void durability_tracker::stored(std::uint64_t lane, const void* p, std::uint32_t bytes, bool view_store) {
  // Split by the host address: a page keeps its offsets in the simulated
  // space (pages of 4 KiB), so sectors end at the same places. Sectors do
  // not cross pages, so neither do pieces.
  std::vector<waiting_piece>& mine = staged_[lane];
  const auto address = std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
  const durable_log::piece_id first = log_.pieces();
  split(p, bytes, address, [&](const waiting_piece& w) { mine.push_back(w); });
  if (remember_ && view_store) stores_.push_back({address, first, std::uint32_t(log_.pieces() - first)});
}

picos durability_tracker::durable_time(std::size_t k, std::uint64_t address) const {
  const store_record& s = stores_.at(k);
  std::uint64_t at = s.address;
  for (std::uint32_t i = 0; i < s.pieces; ++i) {
    const durable_log::piece_id id = s.first + i;
    const std::uint32_t n = log_.bytes_of(id);
    if (address >= at && address < at + n) return log_.durable_time(id);
    at += n;
  }
  return not_durable;
}

void durability_tracker::issuing(std::uint32_t sm, const std::uint64_t* lanes, std::uint32_t count,
                                 const address_map& simulated) {
  this_issue_.clear();
  access_from_ = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto it = staged_.find(lanes[i]);
    if (it == staged_.end()) continue;
    for (waiting_piece w : it->second) {
      w.at = simulated(reinterpret_cast<const void*>(w.at));  // staged pieces hold host addresses
      in_l1_[key(sm, line_of(w.at))].push_back(w);
    }
    staged_.erase(it);
  }
}

void durability_tracker::will_write(std::uint32_t sm, std::uint64_t lane, std::uint64_t at) {
  planned p{sm, at, not_durable};
  const std::uint64_t line = line_of(at);
  const std::uint32_t bit = 1u << sector_of(at);
  for (std::size_t i = access_from_; i < this_issue_.size(); ++i) {
    const written& w = this_issue_[i];
    if (w.line == line && (w.sectors & bit)) p.durable = std::min(p.durable, w.durable);
  }
  planned_[lane] = p;
}

bool durability_tracker::wrote(std::uint64_t lane, const void* p, std::uint32_t bytes) {
  const auto it = planned_.find(lane);
  if (it == planned_.end()) return false;
  const planned plan = it->second;
  planned_.erase(it);
  if (plan.durable != not_durable) {
    split(p, bytes, plan.at, [&](const waiting_piece& w) { log_.durable(w.id, plan.durable); });
    return true;
  }
  split(p, bytes, plan.at, [&](const waiting_piece& w) { in_l1_[key(plan.sm, line_of(w.at))].push_back(w); });
  return true;
}

void durability_tracker::host_persisted(const void* p, std::uint64_t bytes, picos now) {
  const auto* b = static_cast<const std::byte*>(p);
  constexpr std::uint64_t chunk = std::uint64_t(1) << 30;
  for (std::uint64_t done = 0; done < bytes; done += chunk)
    log_.durable(log_.take(b + done, std::uint32_t(std::min(chunk, bytes - done))), now);
}

void durability_tracker::pm_written(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors, picos durable,
                                    bool atomic) {
  this_issue_.push_back({line, sectors, durable});
  if (atomic) return;  // an atomic writes its own result, not the L1's pending bytes
  const auto it = in_l1_.find(key(sm, line));
  if (it == in_l1_.end()) return;
  std::vector<waiting_piece>& v = it->second;
  std::erase_if(v, [&](const waiting_piece& w) {
    if (!(sectors & (1u << sector_of(w.at)))) return false;
    log_.durable(w.id, durable);
    return true;
  });
  if (v.empty()) in_l1_.erase(it);
}

std::size_t durability_tracker::waiting() const {
  std::size_t n = 0;
  for (const auto& [k, v] : staged_) n += v.size();
  for (const auto& [k, v] : in_l1_) n += v.size();
  return n + planned_.size();
}

}  // namespace gpmx::sim
