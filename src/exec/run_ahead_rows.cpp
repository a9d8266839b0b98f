#include "run_ahead_rows.hpp"

#include <algorithm>
#include <cstring>

namespace gpmx::cpu::detail {
namespace {

// A record as four words: kind to bytes, address, work and acquire (the
// rest of that word is padding, which records written a field at a time
// leave undefined: masked), location.
static_assert(sizeof(timed_op) == 32 && offsetof(timed_op, addr) == 8 && offsetof(timed_op, work) == 16 &&
                  offsetof(timed_op, acquire) == 20 && offsetof(timed_op, loc) == 24,
              "run_ahead_rows reads timed_op's fields by offset");
constexpr std::uint64_t work_and_acquire = 0xff'ffff'ffffull;

std::uint64_t word(const timed_op& op, unsigned i) {
  std::uint64_t w;
  std::memcpy(&w, reinterpret_cast<const unsigned char*>(&op) + 8 * i, 8);
  return w;
}

// Nonzero unless every lane's record of `row` is lane 0's but for an
// address `stride` bytes further per lane.
std::uint64_t row_differs(const timed_op* row, std::uint64_t stride) {
  const std::uint64_t head = word(row[0], 0), tail = word(row[0], 2) & work_and_acquire, loc = word(row[0], 3);
  std::uint64_t differs = 0, addr = word(row[0], 1);
  for (std::uint32_t l = 1; l < run_ahead_rows::lanes; ++l) {
    addr += stride;  // a running sum: a multiply per lane cost more than the rest of the test
    differs |= (word(row[l], 0) ^ head) | (word(row[l], 1) ^ addr) | ((word(row[l], 2) & work_and_acquire) ^ tail) |
               (word(row[l], 3) ^ loc);
  }
  return differs;
}

}  // namespace

bool run_ahead_rows::same_but_address(const timed_op& a, const timed_op& b) {
  return ((word(a, 0) ^ word(b, 0)) | ((word(a, 2) ^ word(b, 2)) & work_and_acquire) | (word(a, 3) ^ word(b, 3))) ==
         0;
}

void run_ahead_rows::reset(std::uint32_t warps, std::uint32_t ahead) {
  for (timed_op* r : rows_)
    if (r) free_.push_back(r);
  const std::size_t area = std::size_t(ahead) * lanes;
  if (area != area_ops_) {  // areas of another size: dropped
    free_.clear();
    areas_.clear();
    area_ops_ = area;
  }
  ahead_ = ahead;
  rows_.assign(warps, nullptr);
  written_flag_.assign(warps, 0);
  written_.clear();
  summaries_.resize(std::size_t(warps) * ahead);
}

std::pair<std::uint32_t, std::uint32_t> run_ahead_rows::live(lane_state l) const {
  std::uint32_t first = ahead_, end = 0;
  for (std::uint32_t lane = 0; lane < lanes; ++lane)
    if (const std::uint32_t n = l.count[lane]; n != 0) {
      first = std::min<std::uint32_t>(first, l.at[lane]);
      end = std::max(end, n);
    }
  return first < end ? std::pair{first, end} : std::pair{0u, 0u};
}

timed_op* run_ahead_rows::lend() {
  if (free_.empty()) {
    // Uninitialized: a record is written before it is read.
    areas_.emplace_back(
        static_cast<timed_op*>(::operator new[](area_ops_ * sizeof(timed_op), std::align_val_t(area_alignment))));
    return areas_.back().get();
  }
  timed_op* r = free_.back();
  free_.pop_back();
  return r;
}

void run_ahead_rows::restore(std::uint32_t w, lane_state l) {
  timed_op* rows = lend();
  const auto [first, end] = live(l);
  for (std::uint32_t k = first; k < end; ++k) {
    const summary& s = summary_of(w, k);
    for (std::uint32_t lane = 0; lane < lanes; ++lane) {
      timed_op& op = rows[std::size_t(k) * lanes + lane];
      op = s.lead;
      op.addr = address(s, lane);
    }
  }
  rows_[w] = rows;
}

bool run_ahead_rows::summarize(std::uint32_t w, lane_state l) {
  const timed_op* rows = rows_[w];
  const auto [first, end] = live(l);
  for (std::uint32_t lane = 0; lane < lanes; ++lane)  // a summary needs every lane's record in every row
    if (l.count[lane] < end) return false;
  for (std::uint32_t k = first; k < end; ++k) {
    const timed_op* row = rows + std::size_t(k) * lanes;
    const std::uint64_t stride = word(row[1], 1) - word(row[0], 1);  // modulo 2^64, as the test's sums
    if (row_differs(row, stride) != 0) return false;
    summary& s = summaries_[std::size_t(w) * ahead_ + k];
    s.lead = row[0];
    s.stride = std::int64_t(stride);
  }
  free_.push_back(rows_[w]);
  rows_[w] = nullptr;
  return true;
}

}  // namespace gpmx::cpu::detail
