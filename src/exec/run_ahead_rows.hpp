#pragma once
// The timed schedule's records of the operations a block's lanes ran ahead
// over: per warp, rows of 32 records (record k of every lane side by side),
// lent from a pool while the warp's lanes write them, and kept as a summary
// per row once every row they have yet to issue is one operation at
// addresses a fixed stride apart (a warp's loop over an array).
//
// Why: a full GPU's lanes record tens of megabytes ahead (64 operations of
// 32 bytes per lane), more than the host's caches hold, so every warp
// instruction read its row cold and the rows pushed the timing model's own
// state out of the caches. A summary is 40 bytes a row, and the area it
// frees is the next one lent (the pool gives back the last area returned),
// still in the host's caches.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "gpmx/exec/timing.hpp"

namespace gpmx::cpu::detail {

class run_ahead_rows {
 public:
  static constexpr std::uint32_t lanes = 32;

  // A warp's lanes: how many records each holds and which it stops at
  // (both indexed by lane).
  struct lane_state {
    const std::uint16_t* count;
    const std::uint16_t* at;
  };

  // For a block of `warps` warps whose lanes record at most `ahead`
  // operations each: every area lent for the last block goes back.
  void reset(std::uint32_t warps, std::uint32_t ahead);
  // Per warp, its rows or null (summarized, or nothing recorded): what a
  // lane's inline record writes through (block_state::ahead_rows).
  timed_op* const* rows() const { return rows_.data(); }
  timed_op* rows_of(std::uint32_t w) const { return rows_[w]; }
  std::uint32_t warps() const { return std::uint32_t(rows_.size()); }

  // A lane of warp w is about to write a record: the warp holds rows (its
  // summarized rows rebuilt in them) and is summarized again after the run.
  timed_op* begin(std::uint32_t w, lane_state l) {
    if (!rows_[w]) restore(w, l);
    if (!written_flag_[w]) {
      written_flag_[w] = 1;
      written_.push_back(w);
    }
    return rows_[w];
  }
  // Lends warp w rows without marking it written (a cancelled block's
  // lanes may still write as they unwind).
  void hold(std::uint32_t w, lane_state l) {
    if (!rows_[w]) restore(w, l);
  }

  // Record k of `lane`, read from the rows or the row's summary.
  timed_op value(std::uint32_t w, std::uint32_t lane, std::uint32_t k) const {
    if (const timed_op* r = rows_[w]) return r[std::size_t(k) * lanes + lane];
    const summary& s = summary_of(w, k);
    timed_op op = s.lead;
    op.addr = address(s, lane);
    return op;
  }

  // Row k of warp w, which holds no rows, as summarized: lane l's record is
  // `lead` with its address at lead.addr + l * stride.
  struct summary {
    timed_op lead;
    std::int64_t stride;
  };
  const summary& summary_of(std::uint32_t w, std::uint32_t k) const {
    return summaries_[std::size_t(w) * ahead_ + k];
  }
  // Addresses as integers: a stride may lead anywhere.
  static const void* address(const summary& s, std::uint32_t lane) {
    return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(s.lead.addr) +
                                         std::uintptr_t(s.stride) * lane);
  }

  // Whether two records differ in nothing but their address.
  static bool same_but_address(const timed_op& a, const timed_op& b);

  bool any_written() const { return !written_.empty(); }
  // After a run (every lane that ran has stopped again): each warp written
  // since the last call whose rows yet to issue are all summaries gives its
  // rows back. lanes_of(w) gives warp w's lane_state.
  template <class LanesOf>
  void summarize_written(LanesOf&& lanes_of) {
    for (const std::uint32_t w : written_) {
      written_flag_[w] = 0;
      if (rows_[w]) summarize(w, lanes_of(w));
    }
    written_.clear();
  }

 private:
  static constexpr std::size_t area_alignment = 64;  // rows on whole host cache lines
  struct area_delete {  // raw, over-aligned storage: timed_op is an implicit-lifetime type
    void operator()(timed_op* p) const { ::operator delete[](p, std::align_val_t(area_alignment)); }
  };

  // Rows [first, end) that some lane recorded and has not issued yet.
  std::pair<std::uint32_t, std::uint32_t> live(lane_state l) const;
  timed_op* lend();
  void restore(std::uint32_t w, lane_state l);
  bool summarize(std::uint32_t w, lane_state l);

  std::uint32_t ahead_ = 0;
  std::vector<timed_op*> rows_;
  std::vector<summary> summaries_;          // per warp, ahead_ rows; read where rows_ is null
  std::vector<std::uint8_t> written_flag_;  // per warp: in written_
  std::vector<std::uint32_t> written_;
  std::size_t area_ops_ = 0;                // records per area (ahead_ * lanes)
  std::vector<std::unique_ptr<timed_op, area_delete>> areas_;  // every area made
  std::vector<timed_op*> free_;                                // not lent; the last returned on top
};

}  // namespace gpmx::cpu::detail
