#pragma once
// A pool: one file holding named regions of persistent memory, found again
// by name after a restart (SBRP's PM-near namespace table, kept in the file).
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/pm/write_throttle.hpp"

namespace gpmx::pm {

// How persist requests reach the file.
enum class durability {
  pmem,   // libpmem decides: cache-line flushes on real PM (DAX), msync elsewhere
  msync,  // always msync the pages
  flush,  // cache-line flushes and a fence, even where the file is not PM: durable
          // on PM; on tmpfs this is DRAM-emulated PM (what PM research measures)
  none,   // no flushing at all: fast, for experiments; nothing is claimed durable
};
const char* to_string(durability d);
durability durability_from_string(std::string_view s);  // throws pm_error(bad_argument)

struct pool_options {
  durability mode = durability::pmem;
  std::uint32_t table_capacity = 256;  // regions the namespace can hold (create only)
  // Write every block of the new file (zeros) instead of only reserving
  // them: for files later written through the file and synced, such as a
  // checkpoint's copies, whose fdatasync on ext4 costs about 1.5x as much
  // over reserved (unwritten) blocks (docs/benchmarks.md). Costs one write
  // of the whole file at create.
  bool write_blocks = false;
};

struct region_info {
  std::string name;
  std::uint64_t offset = 0;  // from the start of the file
  std::uint64_t size = 0;
  std::uint64_t flags = 0;   // the caller's; gpmx does not interpret them
};

inline constexpr std::size_t max_region_name = 47;
inline constexpr std::uint64_t region_alignment = 4096;

class pool;

// A named region of a pool's mapping. Valid while its pool is open.
class region {
 public:
  region(pool* owner, region_info info, std::byte* data) : owner_(owner), info_(std::move(info)), data_(data) {}
  const std::string& name() const { return info_.name; }
  std::uint64_t size() const { return info_.size; }
  std::uint64_t flags() const { return info_.flags; }
  std::uint64_t offset() const { return info_.offset; }  // from the start of the pool's file
  std::byte* data() const { return data_; }
  template <class T>
  std::span<T> as() const {
    return {reinterpret_cast<T*>(data_), std::size_t(info_.size / sizeof(T))};
  }
  // A typed view whose stores kernels make visible to the runtime.
  template <class T>
  pm_span<T> span() const {
    return {reinterpret_cast<T*>(data_), std::size_t(info_.size / sizeof(T)), domain()};
  }
  // The pool, as the executor sees it.
  const persist_domain* domain() const;
  // Makes [data() + offset, + bytes) durable under the pool's setting.
  // `loc` names the caller in trace-mode recordings (docs/trace.md).
  void persist(std::uint64_t offset, std::uint64_t bytes, source_loc loc = source_loc::current()) const;
  void persist(source_loc loc = source_loc::current()) const { persist(0, info_.size, loc); }

 private:
  pool* owner_;
  region_info info_;
  std::byte* data_;
};

class pool {
 public:
  // Creates a new pool file of `size` bytes; fails if `path` exists. The file
  // appears under its name only once fully initialised and persisted.
  static pool create(const std::filesystem::path& path, std::uint64_t size, pool_options options = {});
  // Opens an existing pool; validates everything before returning and never
  // writes to the file when it fails.
  static pool open(const std::filesystem::path& path, durability mode = durability::pmem);

  pool(pool&&) noexcept;
  pool& operator=(pool&&) noexcept;
  ~pool();

  region create_region(std::string_view name, std::uint64_t size, std::uint64_t flags = 0);
  region find(std::string_view name);  // throws pm_error(missing_region)
  bool contains(std::string_view name) const;
  std::vector<region_info> list() const;
  void remove_region(std::string_view name);

  // Makes [p, p + bytes) durable under the pool's setting (p inside the
  // mapping). `loc` names the caller in trace-mode recordings.
  void persist(const void* p, std::uint64_t bytes, source_loc loc = source_loc::current()) const;
  // Bytes persisted through this pool object so far (its PM write traffic).
  std::uint64_t bytes_persisted() const;
  // Whether large file writes and one sync make data durable faster than
  // stores through the mapping and msync: a file on a device (not PM, not
  // tmpfs) under msync durability, with no trace recorder watching.
  bool prefers_file_writes() const;
  // Whether persists are appended to the pool's persist journal,
  // `<path>.journal` (a file on a device under msync durability; see
  // docs/persistency-models.md section 4).
  bool journals() const;
  // What the journal has written since the pool was opened (all zero when
  // it does not journal): records, their bytes, and whole-pool syncs.
  struct journal_counts {
    std::uint64_t records = 0, record_bytes = 0, pool_syncs = 0;
  };
  journal_counts journal_stats() const;
  // One piece for write_durably: `bytes` bytes from `src` to `dst` (inside
  // the mapping).
  struct file_write {
    std::byte* dst;
    const std::byte* src;
    std::uint64_t bytes;
  };
  // Writes every piece and makes them durable with one fdatasync (a
  // checkpoint's save, as CAP-fs writes). Consecutive pieces whose
  // destinations follow one another are written together, one pwritev per
  // MiB, each large write's writeback started at once so the device works
  // while the rest is written; after_each_write (if any) is called after
  // each pwritev. before_last (if any) runs once every piece but the last
  // is written, and may fill the last piece's source (a seal summed while
  // the device writes). Needs prefers_file_writes(); throws pm_error(io)
  // naming the file if a write or the sync fails.
  void write_durably(std::span<const file_write> pieces, const std::function<void()>& after_each_write = {},
                     const std::function<void()>& before_last = {}) const;
  // Writes the pieces through the file and starts their writeback without
  // waiting: they become durable when the device has written them, or at
  // the next sync at the latest (a record that may lag, such as a
  // checkpoint's epoch word, kept off the next save's sync). Needs
  // prefers_file_writes(); throws pm_error(io) naming the file if a write
  // fails.
  void write_behind(std::span<const file_write> pieces) const;
  // What PM views record stores against; persist_range is persist().
  const persist_domain* domain() const;
  // Emulates slow NVRAM behind this pool's kernel persists (persists made
  // through domain(): views' persistency operations and range persists;
  // host persists are not charged): see write_throttle.hpp. Null removes
  // it. Set it while no kernel runs.
  void set_write_throttle(std::shared_ptr<write_throttle> t);
  const write_throttle* throttle() const;

  const std::filesystem::path& path() const;
  std::uint64_t size() const;
  std::byte* base() const;
  durability mode() const;
  bool is_pmem() const;  // libpmem found real persistent memory
  std::array<std::uint8_t, 16> uuid() const;
  std::uint64_t created_ns() const;  // creation time, ns since the Unix epoch
  std::uint32_t table_capacity() const;

 private:
  struct state;
  explicit pool(std::unique_ptr<state> s);
  std::unique_ptr<state> s_;
};

// Where a pool at `pool_path` keeps its persist journal (docs/pm.md).
std::filesystem::path journal_path(const std::filesystem::path& pool_path);

}  // namespace gpmx::pm
