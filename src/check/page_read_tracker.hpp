#pragma once
// The machinery behind read_tracker (gpmx/check/read_tracker.hpp) and the
// preloaded tracker of outside commands (read_preload.cpp): protect the
// regions it is given, note each access by a fault and one single-stepped
// instruction, and fold the notes into the granules first read, per file.
// One per process.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpmx/check/pool_reads.hpp"

namespace gpmx::check {

class page_read_tracker {
 public:
  static bool available();
  // Throws std::runtime_error when unavailable or when another one lives.
  page_read_tracker(std::uint32_t granularity, std::size_t max_accesses);
  ~page_read_tracker();
  page_read_tracker(const page_read_tracker&) = delete;
  page_read_tracker& operator=(const page_read_tracker&) = delete;

  // [base, base + length) maps `path` from `file_offset` on: protected
  // from now on, its accesses noted. Ignored after finish().
  void add(const void* base, std::uint64_t length, const std::string& path, std::uint64_t file_offset = 0);
  // The region at `base` goes away (unknown bases are ignored).
  void remove(const void* base);
  // Opens every region, stops noting, restores the signal handlers.
  pool_reads finish();

 private:
  struct region {
    std::uintptr_t base = 0;
    std::uint64_t length = 0;
    std::string path;
    std::uint64_t file_offset = 0;
    std::size_t first_note = 0;  // notes before it was mapped are another mapping's
    bool untracked = false;
  };
  // Folds the notes [r.first_note, notes_end) inside `r` into reads_.
  void fold(const region& r, std::size_t notes_end);

  std::uint32_t granularity_;
  std::vector<region> regions_;
  pool_reads reads_;
  std::map<std::string, std::size_t> file_index_;                      // into reads_.files
  std::vector<std::unordered_map<std::uint64_t, bool>> first_access_;  // per file: granule -> first was a write
  bool finished_ = false;
};

}  // namespace gpmx::check
