#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/pm_write_stats.hpp"
#include "gpmx/pm/pool_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <vector>

#include "gpmx/exec/observer.hpp"

#include "file_io.hpp"
#include "format.hpp"
#include "mapping.hpp"
#include "namespace_table.hpp"
#include "persist_journal.hpp"

namespace gpmx::pm {
namespace fs = std::filesystem;

// The pool as the executor sees it: a place whose ranges can be persisted.
// With a write throttle, every kernel persist is charged its sectors first
// (write_throttle.hpp) and waits for the emulated device (a kernel thread
// parks; the flusher and host threads block).
class pool_domain final : public persist_domain {
 public:
  explicit pool_domain(const mapping* m) : map_(m), registration_(this, m->base(), m->size()) {}
  void persist_range(const void* p, std::size_t bytes) const override {
    if (write_throttle* t = throttle()) t->charge_range(p, bytes);
    map_->persist(p, bytes);
  }
  // An msync is a system call and a device write: waiting threads share
  // it. On tmpfs it writes no device and sharing costs more than it saves.
  bool shares_flushes() const override { return syncs_pages() && !map_->in_memory_fs(); }
  void persist_merged(const void* p, std::size_t bytes, std::size_t asked) const override {
    if (write_throttle* t = throttle()) t->charge_range(p, bytes);
    map_->persist_merged(p, bytes, asked);
  }
  // A throttle charges what the merged ranges cover: merge lines only.
  std::size_t flush_unit_bytes() const override {
    return map_->journals() || throttle() != nullptr ? persist_line_bytes : 4096;
  }
  // A journal copies exactly the bytes it is given; a throttle charges
  // whole sectors, so it is given lines.
  bool persists_stored_bytes() const override { return map_->journals() && throttle() == nullptr; }
  std::size_t persist_group(const merged_range* ranges, std::size_t n) const override {
    if (write_throttle* t = throttle()) {
      std::uint64_t sectors = 0;
      for (std::size_t i = 0; i < n; ++i) sectors += t->sectors_of(ranges[i].p, ranges[i].bytes);
      t->charge_sectors(sectors);
    }
    if (!map_->syncs_whole_file() || n == 0) {
      for (std::size_t i = 0; i < n; ++i) map_->persist_merged(ranges[i].p, ranges[i].bytes, ranges[i].asked);
      return n;
    }
    map_->persist_group(ranges, n);
    return 1;
  }
  // msync works on pages: one call per run of lines that share or touch
  // pages, instead of one per run of adjacent lines. A journal takes all of
  // a thread's runs of adjacent lines in one record.
  void persist_lines(const std::uintptr_t* lines, std::size_t n) const override {
    if (write_throttle* t = throttle()) t->charge_sectors(n * ((persist_line_bytes + t->sector_bytes() - 1) / t->sector_bytes()));
    // Cache-line flushes: each run of adjacent lines; msync: runs that share
    // pages. An observer (a trace, the timed mode's model) is told each run
    // of adjacent lines: what was asked for, not the pages around it.
    observer* const watching = host_observer();
    const bool line_flushes = (map_->mode() == durability::pmem && map_->is_pmem()) ||
                              map_->mode() == durability::flush || watching != nullptr;
    thread_local std::vector<merged_range> runs;
    merge_lines(lines, n, line_flushes ? persist_line_bytes : flush_unit_bytes(), runs);
    if (!line_flushes && map_->journals()) {
      if (!runs.empty()) map_->persist_group(runs.data(), runs.size());
      return;
    }
    // An observer hears the runs as one persist: written back together,
    // waited for once (a fence after the cache-line write-backs).
    struct told_as_one {
      observer* o;
      explicit told_as_one(observer* w) : o(w) {
        if (o) o->host_persists_begin();
      }
      ~told_as_one() {
        if (o) o->host_persists_end();
      }
      told_as_one(const told_as_one&) = delete;
      told_as_one& operator=(const told_as_one&) = delete;
    } group(watching);
    for (const merged_range& r : runs) map_->persist(r.p, r.bytes);
  }

  void set_throttle(std::shared_ptr<write_throttle> t) {
    owned_ = std::move(t);
    throttle_.store(owned_.get(), std::memory_order_release);
  }
  write_throttle* throttle() const { return throttle_.load(std::memory_order_acquire); }

 private:
  bool syncs_pages() const { return map_->syncs_pages(); }
  const mapping* map_;
  std::shared_ptr<write_throttle> owned_;
  std::atomic<write_throttle*> throttle_{nullptr};
  scoped_persist_domain registration_;  // kernels' persist_range finds the pool by address
};

struct pool::state {
  fs::path path;
  std::unique_ptr<mapping> map;
  std::unique_ptr<pool_domain> domain;
  format::header header{};
  std::optional<namespace_table> table;
  mutable std::mutex mutex;  // namespace updates

  std::string where() const { return path.string(); }
};

namespace {

[[noreturn]] void fail(errc code, const std::string& what) { throw pm_error(code, what); }

std::string entry_name(const format::entry& e) { return std::string(e.name, strnlen(e.name, sizeof e.name)); }

region_info info_of(const format::entry& e) { return {entry_name(e), e.offset, e.size, e.flags}; }

void fsync_path(const fs::path& p, const std::string& shown) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    fail(errc::io, fmt::format("{}: fsync failed: {}", shown, std::strerror(err)));
  }
  ::close(fd);
}

// Reads and checks the header without mapping (a failed open writes nothing).
format::header read_header(const fs::path& path) {
  std::error_code ec;
  const auto file_size = fs::file_size(path, ec);
  if (ec) fail(errc::io, fmt::format("{}: cannot open pool: {}", path.string(), ec.message()));
  format::header h{};
  if (file_size < sizeof h)
    fail(errc::truncated,
         fmt::format("{}: {} bytes, smaller than a pool header ({} bytes)", path.string(), file_size, sizeof h));
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h))
    fail(errc::io, fmt::format("{}: cannot read the pool header", path.string()));
  if (std::memcmp(h.magic, format::magic, sizeof h.magic) != 0)
    fail(errc::not_a_pool, fmt::format("{}: not a gpmx pool (no GPMXPOOL magic)", path.string()));
  if (h.version != format::version)
    fail(errc::wrong_version, fmt::format("{}: pool format version {}, this gpmx reads version {}", path.string(),
                                          h.version, format::version));
  if (format::header_checksum(h) != h.checksum)
    fail(errc::checksum_mismatch, fmt::format("{}: pool header checksum mismatch", path.string()));
  if (h.features != 0)
    fail(errc::wrong_version, fmt::format("{}: pool uses feature bits {:#x} this gpmx does not know",
                                          path.string(), h.features));
  if (file_size < h.pool_size)
    fail(errc::truncated, fmt::format("{}: {} bytes, but its header describes a {}-byte pool", path.string(),
                                      file_size, h.pool_size));
  const bool layout_ok = h.table_bytes == format::table_bytes_for(h.table_capacity) &&
                         h.table_offset >= format::header_bytes &&
                         h.table_offset + 2 * h.table_bytes <= h.data_offset && h.data_offset <= h.pool_size;
  if (!layout_ok) fail(errc::not_a_pool, fmt::format("{}: inconsistent pool header layout", path.string()));
  return h;
}

void check_entries(const std::vector<format::entry>& entries, const format::header& h, const std::string& where) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> extents;
  for (const auto& e : entries) {
    const std::string name = entry_name(e);
    if (name.empty() || name.size() > max_region_name || e.size == 0 || e.offset < h.data_offset ||
        e.offset > h.pool_size || e.size > h.pool_size - e.offset)
      fail(errc::not_a_pool, fmt::format("{}: namespace entry '{}' is corrupt", where, name));
    extents.emplace_back(e.offset, e.offset + e.size);
  }
  std::sort(extents.begin(), extents.end());
  for (std::size_t i = 1; i < extents.size(); ++i)
    if (extents[i].first < extents[i - 1].second)
      fail(errc::not_a_pool, fmt::format("{}: namespace entries overlap", where));
}

}  // namespace

const char* to_string(durability d) {
  switch (d) {
    case durability::pmem: return "pmem";
    case durability::msync: return "msync";
    case durability::flush: return "flush";
    case durability::none: return "none";
  }
  return "?";
}

durability durability_from_string(std::string_view s) {
  if (s == "pmem") return durability::pmem;
  if (s == "msync") return durability::msync;
  if (s == "flush") return durability::flush;
  if (s == "none") return durability::none;
  fail(errc::bad_argument, fmt::format("durability '{}' is not one of pmem, msync, flush, none", s));
}

pool::pool(std::unique_ptr<state> s) : s_(std::move(s)) {}
pool::pool(pool&&) noexcept = default;
pool& pool::operator=(pool&&) noexcept = default;
pool::~pool() = default;

pool pool::create(const fs::path& path, std::uint64_t size, pool_options options) {
  if (options.table_capacity == 0 || options.table_capacity > 65536)
    fail(errc::bad_argument, fmt::format("{}: table capacity {} is not in [1, 65536]", path.string(),
                                         options.table_capacity));
  const std::uint64_t table_bytes = format::table_bytes_for(options.table_capacity);
  const std::uint64_t data_offset = format::header_bytes + 2 * table_bytes;
  const std::uint64_t minimum = data_offset + region_alignment;
  if (size < minimum)
    fail(errc::bad_size, fmt::format("{}: a pool of {} bytes cannot hold its metadata and one region; "
                                     "at least {} bytes are needed",
                                     path.string(), size, minimum));
  std::error_code ec;
  if (fs::exists(path, ec)) fail(errc::already_exists, fmt::format("{}: already exists", path.string()));

  // Build the pool under a temporary name; it takes its real name only
  // once complete, so a crash during creation leaves no half-made pool.
  const fs::path tmp = path.string() + fmt::format(".creating.{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL, 0644);
  if (fd < 0) fail(errc::io, fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno)));
  int alloc = ::posix_fallocate(fd, 0, off_t(size));
  if (alloc == 0 && options.write_blocks) alloc = write_zeros(fd, 0, size);
  ::close(fd);
  if (alloc != 0) {
    fs::remove(tmp, ec);
    fail(errc::io, fmt::format("{}: cannot {} {} bytes: {}", path.string(),
                               options.write_blocks ? "reserve and write" : "reserve", size, std::strerror(alloc)));
  }
  try {
    auto s = std::make_unique<state>();
    s->path = path;
    s->map = std::make_unique<mapping>(tmp, path, options.mode);
    s->domain = std::make_unique<pool_domain>(s->map.get());
    format::header& h = s->header;
    std::memcpy(h.magic, format::magic, sizeof h.magic);
    h.version = format::version;
    h.features = 0;
    const pool_identity id = next_pool_identity();
    std::memcpy(h.uuid, id.uuid.data(), sizeof h.uuid);
    h.created_ns = id.created_ns;
    h.pool_size = size;
    h.table_offset = format::header_bytes;
    h.table_bytes = table_bytes;
    h.table_capacity = options.table_capacity;
    h.data_offset = data_offset;
    h.checksum = format::header_checksum(h);
    std::byte* base = s->map->base();
    namespace_table::format_empty(base + h.table_offset, table_bytes);
    std::memcpy(base, &h, sizeof h);
    s->map->persist(base, data_offset);  // a no-op under none, but a trace records it
    if (options.mode != durability::none) fsync_path(tmp, path.string());
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      fail(errc::io, fmt::format("{}: cannot rename the new pool into place: {}", path.string(),
                                 std::strerror(errno)));
    if (options.mode != durability::none) fsync_path(path.parent_path().empty() ? "." : path.parent_path(), path.string());
    s->map->journal_persists(path, h.uuid);
    const mapping* m = s->map.get();
    s->table.emplace(base + h.table_offset, table_bytes, h.table_capacity,
                     [m](const void* p, std::size_t n) { m->persist(p, n); }, path.string());
    return pool(std::move(s));
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

pool pool::open(const fs::path& path, durability mode) {
  auto s = std::make_unique<state>();
  s->path = path;
  s->header = read_header(path);
  // Stores a crash left only in the persist journal go into the file
  // first; the mapping then appends after the records or empties them.
  const journal_replay replayed = persist_journal::replay(path, s->header.uuid);
  s->map = std::make_unique<mapping>(path, path, mode);
  s->map->journal_persists(path, s->header.uuid, &replayed);
  s->domain = std::make_unique<pool_domain>(s->map.get());
  const format::header& h = s->header;
  const mapping* m = s->map.get();
  s->table.emplace(s->map->base() + h.table_offset, h.table_bytes, h.table_capacity,
                   [m](const void* p, std::size_t n) { m->persist(p, n); }, path.string());
  check_entries(s->table->entries(), h, path.string());
  return pool(std::move(s));
}

region pool::create_region(std::string_view name, std::uint64_t size, std::uint64_t flags) {
  const std::string where = s_->where();
  if (name.empty()) fail(errc::name_empty, fmt::format("{}: a region name may not be empty", where));
  if (name.size() > max_region_name)
    fail(errc::name_too_long, fmt::format("{}: region name '{}' has {} characters; at most {}", where, name,
                                          name.size(), max_region_name));
  if (name.find('\0') != std::string_view::npos)
    fail(errc::bad_argument, fmt::format("{}: region name contains a NUL character", where));
  const format::header& h = s_->header;
  if (size == 0) fail(errc::bad_size, fmt::format("{}: region '{}' of size 0", where, name));
  if (size > h.pool_size - h.data_offset)
    fail(errc::bad_size, fmt::format("{}: region '{}' of {} bytes exceeds the pool's {} bytes of data space",
                                     where, name, size, h.pool_size - h.data_offset));

  std::lock_guard lock(s_->mutex);
  std::vector<format::entry> entries = s_->table->entries();
  for (const auto& e : entries)
    if (entry_name(e) == name) fail(errc::duplicate_name, fmt::format("{}: region '{}' already exists", where, name));
  if (entries.size() >= h.table_capacity)
    fail(errc::table_full, fmt::format("{}: the namespace table holds its maximum of {} regions; cannot add '{}'",
                                       where, h.table_capacity, name));
  // First fit between existing regions, in offset order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> used;
  for (const auto& e : entries) used.emplace_back(e.offset, e.offset + e.size);
  std::sort(used.begin(), used.end());
  const std::uint64_t rounded = (size + region_alignment - 1) / region_alignment * region_alignment;
  std::uint64_t at = h.data_offset;
  bool found = false;
  for (const auto& [begin, end] : used) {
    if (begin >= at && begin - at >= rounded) {
      found = true;
      break;
    }
    at = std::max(at, (end + region_alignment - 1) / region_alignment * region_alignment);
  }
  if (!found && at <= h.pool_size && h.pool_size - at >= size) found = true;
  if (!found)
    fail(errc::out_of_space, fmt::format("{}: no free extent of {} bytes for region '{}'", where, size, name));

  // A new region starts zeroed and durable before the table names it.
  std::byte* data = s_->map->base() + at;
  std::memset(data, 0, size);
  s_->map->persist(data, size);

  format::entry e{};
  std::memcpy(e.name, name.data(), name.size());
  e.offset = at;
  e.size = size;
  e.flags = flags;
  entries.push_back(e);
  s_->table->commit(std::move(entries));
  return region(this, info_of(e), data);
}

region pool::find(std::string_view name) {
  std::lock_guard lock(s_->mutex);
  for (const auto& e : s_->table->entries())
    if (entry_name(e) == name) return region(this, info_of(e), s_->map->base() + e.offset);
  fail(errc::missing_region, fmt::format("{}: no region named '{}'", s_->where(), name));
}

bool pool::contains(std::string_view name) const {
  std::lock_guard lock(s_->mutex);
  for (const auto& e : s_->table->entries())
    if (entry_name(e) == name) return true;
  return false;
}

std::vector<region_info> pool::list() const {
  std::lock_guard lock(s_->mutex);
  std::vector<region_info> out;
  for (const auto& e : s_->table->entries()) out.push_back(info_of(e));
  return out;
}

void pool::remove_region(std::string_view name) {
  std::lock_guard lock(s_->mutex);
  std::vector<format::entry> entries = s_->table->entries();
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const format::entry& e) { return entry_name(e) == name; });
  if (it == entries.end()) fail(errc::missing_region, fmt::format("{}: no region named '{}' to remove", s_->where(), name));
  entries.erase(it);
  s_->table->commit(std::move(entries));
}

void pool::persist(const void* p, std::uint64_t bytes, source_loc loc) const {
  s_->map->persist(p, bytes, loc);
  pm_write_stats::add_host_persist(bytes);
}
const persist_domain* pool::domain() const { return s_->domain.get(); }
void pool::set_write_throttle(std::shared_ptr<write_throttle> t) { s_->domain->set_throttle(std::move(t)); }
const write_throttle* pool::throttle() const { return s_->domain->throttle(); }
std::uint64_t pool::bytes_persisted() const { return s_->map->bytes_persisted(); }
bool pool::prefers_file_writes() const { return s_->map->writes_through_file(); }
bool pool::journals() const { return s_->map->journals(); }

pool::journal_counts pool::journal_stats() const { return s_->map->journal_stats(); }
void pool::write_durably(std::span<const file_write> pieces, const std::function<void()>& after_each_write,
                         const std::function<void()>& before_last) const {
  pm_write_stats::add_host_persist(s_->map->write_and_sync(pieces, after_each_write, before_last));
}
void pool::write_behind(std::span<const file_write> pieces) const { s_->map->write_behind(pieces); }
const persist_domain* region::domain() const { return owner_->domain(); }
const fs::path& pool::path() const { return s_->path; }
std::uint64_t pool::size() const { return s_->header.pool_size; }
std::byte* pool::base() const { return s_->map->base(); }
durability pool::mode() const { return s_->map->mode(); }
bool pool::is_pmem() const { return s_->map->is_pmem(); }
std::uint64_t pool::created_ns() const { return s_->header.created_ns; }
std::uint32_t pool::table_capacity() const { return std::uint32_t(s_->header.table_capacity); }
std::array<std::uint8_t, 16> pool::uuid() const {
  std::array<std::uint8_t, 16> u;
  std::memcpy(u.data(), s_->header.uuid, u.size());
  return u;
}

void region::persist(std::uint64_t offset, std::uint64_t bytes, source_loc loc) const {
  if (offset > info_.size || bytes > info_.size - offset)
    throw pm_error(errc::bad_argument, fmt::format("region '{}': persist of [{}, {}) is outside its {} bytes",
                                                   info_.name, offset, offset + bytes, info_.size));
  owner_->persist(data_ + offset, bytes, loc);
}

fs::path journal_path(const fs::path& pool_path) { return persist_journal::path_for(pool_path); }

}  // namespace gpmx::pm
