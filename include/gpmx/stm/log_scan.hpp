#pragma once
// Recovery's reading of the NVRAM log (host code): every stream is read
// front to back and stops at the first record that is not whole (no valid
// mark for this epoch); the records found are ordered by sequence number,
// and only the unbroken run after the last applied one counts: at the first
// missing number that transaction and every later one are discarded. A
// stream that is a ring (log_geometry::wraps) is read from the position its
// truncator last made durable, for at most one lap: beyond the records of
// this lap lie those of the last, all applied (the truncator reclaims a
// slot only after its record is in the home image and applied_upto covers
// it), so they are found stale or end the stream.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/record_format.hpp"

namespace gpmx::stm {

struct scanned_record {
  std::uint32_t seq;
  std::uint32_t stream;
  std::uint64_t first_write;  // into log_scan::writes
  std::uint32_t count;
};
struct word_write {
  std::uint32_t word, value;
};

struct log_scan {
  std::vector<scanned_record> records;  // valid, after applied_upto, sorted by seq
  std::vector<word_write> writes;
  std::uint64_t stale = 0;              // valid records at or before applied_upto (already applied)
  std::uint32_t streams_cut = 0;        // streams whose end was a torn or foreign record, not an empty entry
  std::uint64_t duplicates = 0;         // records found again with the same writes (kept once)
  // The unbroken run: records[0, prefix) have seq applied_upto+1, +2, ...
  std::uint64_t prefix = 0;
  // Sequence number after the run that is missing (0 when nothing follows it).
  std::uint32_t gap_at = 0;
};

// Scans `log` laid out as `g`. A valid record that writes a word >= words,
// or a sequence number seen twice with different writes, cannot come from
// any run: throws pm::pm_error(corrupt_value) naming `where`, the stream and
// the entry. A record seen twice with the same writes is kept once.
// starts: where each stream's reading begins (a position, not a slot); empty
// for a log whose streams do not wrap (every stream from 0).
log_scan scan_log(std::span<const log_entry> log, const log_geometry& g, std::uint64_t epoch,
                  std::uint64_t applied_upto, std::uint32_t words, const std::string& where,
                  std::span<const std::uint64_t> starts = {});

// The records of one stream from position `from` up to position `to` (at
// most one lap), each whole with a valid mark, appended to out in stream
// order (and the position after each to `ends`, if given); returns the
// position after the last record read and whether the stream ended at an
// empty entry or at `to`, not at a torn or foreign record. published_end:
// `to` is how far the writer's records are durable, so a record that runs
// past it is one not finished yet, not a torn one. Shared by the scan and
// the truncator.
struct stream_read {
  std::uint64_t end;
  bool clean;
};
stream_read read_stream(std::span<const log_entry> stream, std::uint32_t index, std::uint64_t from, std::uint64_t to,
                        bool published_end, std::uint64_t epoch, std::uint32_t words, const std::string& where,
                        log_scan& out, std::vector<std::uint64_t>* ends = nullptr);

// Applies records[0, prefix) in order to home (absolute values: applying a
// record twice is harmless). Returns the last sequence number applied
// (applied_upto when there was nothing).
std::uint64_t apply_prefix(const log_scan& scan, std::span<std::uint32_t> home, std::uint64_t applied_upto);

}  // namespace gpmx::stm
