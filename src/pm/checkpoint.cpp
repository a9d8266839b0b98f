#include "gpmx/pm/checkpoint.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <vector>

#include "checkpoint_copy.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "checkpoint_layout.hpp"
#include "format.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::pm {
namespace fs = std::filesystem;
namespace L = cp_layout;

namespace {

[[noreturn]] void fail(errc code, const std::string& what) { throw pm_error(code, what); }

// The aligned 8-byte words whose stores commit an update; atomic_ref makes
// each store one untearable write.
std::uint64_t load_word(std::uint64_t* w) { return std::atomic_ref(*w).load(std::memory_order_acquire); }
void store_word(std::uint64_t* w, std::uint64_t v) { std::atomic_ref(*w).store(v, std::memory_order_release); }

// The file pieces of a save on a device: each element, the padding after
// it (zeros: its bytes are no element's), and the seal, so that the copy
// goes out as contiguous writes that end where the seal begins. A gap too
// wide to fill (thousands of elements' worth of alignment) is left
// unwritten, which only splits the write.
std::vector<pool::file_write> gathered_pieces(std::span<const copy_chunk> elements, std::byte* seal_at,
                                              const std::byte* seal, std::uint64_t seal_bytes) {
  static constexpr std::uint64_t max_filler = 64 * 1024;
  static const std::vector<std::byte> zeros(max_filler);
  std::vector<pool::file_write> out;
  const auto fill_to = [&](std::byte* to) {
    std::byte* const from = out.back().dst + out.back().bytes;
    if (to > from && std::uint64_t(to - from) <= max_filler)
      out.push_back({from, zeros.data(), std::uint64_t(to - from)});
  };
  for (const copy_chunk& e : elements) {
    if (!out.empty()) fill_to(e.dst);
    out.push_back({e.dst, e.src, e.bytes});
  }
  if (!out.empty()) fill_to(seal_at);
  out.push_back({seal_at, seal, seal_bytes});
  return out;
}

}  // namespace

struct checkpoint::state {
  pool file;
  std::optional<region> meta;
  std::vector<region> data;  // one per group
  L::header h{};
  std::vector<std::vector<void*>> registered;  // per group, this process's buffers
  // Per group, the highest epoch whose copy holds a matching seal (found at
  // open, then kept by saves): what restore may return.
  std::vector<std::uint64_t> newest_sealed;
  mutable std::mutex mutex;

  explicit state(pool p) : file(std::move(p)) {}

  std::string where() const { return file.path().string(); }
  L::group_words words(std::uint64_t g) const { return L::words_of(meta->data(), h.elements, g); }
  std::span<const std::uint64_t> sizes(std::uint64_t g) const {
    const auto w = words(g);
    return {w.sizes, std::size_t(load_word(w.count))};
  }
  std::byte* copy_base(std::uint64_t g, std::uint64_t copy) const { return data[g].data() + copy * h.copy_stride; }

  void check_group(std::uint32_t g, const char* op) const {
    if (g >= h.groups)
      fail(errc::bad_argument, fmt::format("{}: {}: group {} is out of range; the checkpoint has {} group(s)",
                                           where(), op, g, h.groups));
  }

  // Save and restore need every recorded element registered, and no more.
  void check_complete(std::uint32_t g, const char* op) const {
    const std::size_t recorded = sizes(g).size(), have = registered[g].size();
    if (recorded == 0)
      fail(errc::registration_mismatch, fmt::format("{}: {}: group {} has no registered buffers", where(), op, g));
    if (have != recorded)
      fail(errc::registration_mismatch,
           fmt::format("{}: {}: group {} has {} recorded element(s) but {} registered by this process; register "
                       "the same buffers in the same order first",
                       where(), op, g, recorded, have));
  }

  // The group's elements as copies between its buffers and PM copy `copy`.
  std::vector<copy_chunk> element_copies(std::uint32_t g, std::uint64_t copy, bool to_pm) const {
    const auto s = sizes(g);
    std::vector<copy_chunk> out;
    std::byte* base = copy_base(g, copy);
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto* buf = static_cast<std::byte*>(registered[g][i]);
      std::byte* pm = base + L::element_offset(s, i);
      out.push_back(to_pm ? copy_chunk{buf, pm, s[i]} : copy_chunk{pm, buf, s[i]});
    }
    return out;
  }

  L::seal* seal_of(std::uint64_t g, std::uint64_t copy) const {
    return reinterpret_cast<L::seal*>(copy_base(g, copy) + L::seal_offset(h.copy_stride));
  }

  // Whether copy `copy` holds a whole save: its seal names an epoch of its
  // parity and matches the bytes. A save cut short leaves a seal that does
  // not match (or the older save's epoch).
  std::uint64_t sealed_epoch(std::uint32_t g, std::uint64_t copy) const {
    L::seal* seal = seal_of(g, copy);
    const std::uint64_t e = load_word(&seal->epoch);
    if (e == 0 || e % 2 != copy) return 0;
    const std::byte* base = copy_base(g, copy);
    const auto s = sizes(g);
    const std::uint64_t sum = L::seal_checksum(e, s, [&](std::size_t i) { return base + L::element_offset(s, i); });
    return sum == load_word(&seal->checksum) ? e : 0;
  }

  // The epoch word may lag a save whose copy and seal are durable (a save
  // on a device does not store it, and a crash can come before a store
  // reached PM): the seals are the record.
  void settle(std::uint32_t g) { newest_sealed[g] = std::max(sealed_epoch(g, 0), sealed_epoch(g, 1)); }

  // The group's epoch: the newest sealed save, or the word if it is ahead
  // (a flip made before its copy was sealed, which restore refuses).
  std::uint64_t current_epoch(std::uint32_t g) const {
    return std::max(load_word(words(g).epoch), newest_sealed[g]);
  }

  std::uint64_t total_bytes(std::uint32_t g) const {
    std::uint64_t t = 0;
    for (std::uint64_t s : sizes(g)) t += s;
    return t;
  }
};

checkpoint::checkpoint(std::unique_ptr<state> s) : s_(std::move(s)) {}
checkpoint::checkpoint(checkpoint&&) noexcept = default;
checkpoint& checkpoint::operator=(checkpoint&&) noexcept = default;
checkpoint::~checkpoint() = default;

checkpoint checkpoint::create(const fs::path& path, std::uint64_t bytes, std::uint32_t elements,
                              std::uint32_t groups, durability mode) {
  const std::string where = path.string();
  if (bytes == 0) fail(errc::bad_size, fmt::format("{}: checkpoint size (bytes per group copy) is 0", where));
  if (elements == 0 || elements > (1u << 20))
    fail(errc::bad_argument, fmt::format("{}: elements per group is {}; it must be in [1, {}]", where, elements,
                                         1u << 20));
  if (groups == 0 || groups > 65535)
    fail(errc::bad_argument, fmt::format("{}: groups is {}; it must be in [1, 65535]", where, groups));
  if (bytes > (1ull << 46))
    fail(errc::bad_size, fmt::format("{}: checkpoint size {} bytes per group copy is larger than 64 TiB", where,
                                     bytes));
  const std::uint64_t stride = L::copy_stride(bytes, elements);
  const std::uint64_t meta = L::meta_bytes(groups, elements);
  const std::uint32_t table_capacity = groups + 1;
  // Regions are placed page-aligned one after another (first fit from the
  // start of a fresh pool), so this is exactly what they need.
  const std::uint64_t pool_bytes = format::header_bytes + 2 * format::table_bytes_for(table_capacity) +
                                   L::align_up(meta, region_alignment) + groups * 2 * stride;

  // Saves on a device write the copies through the file: its blocks are
  // written at create so those saves' syncs find no reserved blocks.
  auto s = std::make_unique<state>(
      pool::create(path, pool_bytes, {.mode = mode, .table_capacity = table_capacity, .write_blocks = true}));
  for (std::uint32_t g = 0; g < groups; ++g) s->data.push_back(s->file.create_region(L::data_region(g), 2 * stride));
  // The metadata region comes last and its header is checksummed: a crash
  // during create leaves a file that open rejects, never a half checkpoint.
  s->meta = s->file.create_region(L::meta_region, meta);
  L::header& h = s->h;
  std::memcpy(h.magic, L::magic, sizeof h.magic);
  h.version = L::version;
  h.groups = groups;
  h.elements = elements;
  h.bytes_per_copy = bytes;
  h.copy_stride = stride;
  h.group_record_bytes = L::group_record_bytes(elements);
  h.checksum = L::header_checksum(h);
  std::memcpy(s->meta->data(), &h, sizeof h);
  s->meta->persist(0, sizeof h);
  s->registered.resize(groups);
  s->newest_sealed.assign(groups, 0);
  return checkpoint(std::move(s));
}

checkpoint checkpoint::open(const fs::path& path, durability mode) {
  auto s = std::make_unique<state>(pool::open(path, mode));
  const std::string where = path.string();
  if (!s->file.contains(L::meta_region))
    fail(errc::not_a_pool, fmt::format("{}: a gpmx pool but not a checkpoint (no '{}' region)", where,
                                       L::meta_region));
  s->meta = s->file.find(L::meta_region);
  L::header& h = s->h;
  if (s->meta->size() < L::header_bytes)
    fail(errc::not_a_pool, fmt::format("{}: checkpoint metadata region is too small", where));
  std::memcpy(&h, s->meta->data(), sizeof h);
  if (std::memcmp(h.magic, L::magic, sizeof h.magic) != 0 || L::header_checksum(h) != h.checksum)
    fail(errc::not_a_pool, fmt::format("{}: checkpoint header is missing or corrupt (interrupted create?)", where));
  if (h.version != L::version)
    fail(errc::wrong_version, fmt::format("{}: checkpoint format version {}, this gpmx reads version {}", where,
                                          h.version, L::version));
  const bool layout_ok = h.groups >= 1 && h.groups <= 65535 && h.elements >= 1 && h.elements <= (1u << 20) &&
                         h.bytes_per_copy >= 1 && h.bytes_per_copy <= (1ull << 46) &&
                         h.copy_stride == L::copy_stride(h.bytes_per_copy, h.elements) &&
                         h.group_record_bytes == L::group_record_bytes(h.elements) &&
                         s->meta->size() >= L::meta_bytes(h.groups, h.elements);
  if (!layout_ok) fail(errc::not_a_pool, fmt::format("{}: inconsistent checkpoint header", where));
  for (std::uint64_t g = 0; g < h.groups; ++g) {
    const std::string name = L::data_region(g);
    if (!s->file.contains(name))
      fail(errc::not_a_pool, fmt::format("{}: checkpoint group {} has no data region '{}'", where, g, name));
    s->data.push_back(s->file.find(name));
    if (s->data.back().size() < 2 * h.copy_stride)
      fail(errc::not_a_pool, fmt::format("{}: data region '{}' is smaller than two copies", where, name));
    // The group's table: element sizes a registration could have recorded,
    // and an epoch that a save can still advance.
    const auto w = s->words(g);
    const std::uint64_t count = check_stored(path, L::meta_region, fmt::format("element count of group {}", g),
                                             load_word(w.count), 0, h.elements);
    std::uint64_t total = 0;
    for (std::uint64_t i = 0; i < count; ++i)
      total += check_stored(path, L::meta_region, fmt::format("size of element {} of group {}", i, g), w.sizes[i], 1,
                            h.bytes_per_copy - total);
    check_stored(path, L::meta_region, fmt::format("epoch of group {}", g), load_word(w.epoch), 0, ~0ull - 1);
  }
  s->registered.resize(h.groups);
  s->newest_sealed.assign(h.groups, 0);
  for (std::uint32_t g = 0; g < h.groups; ++g) s->settle(g);
  return checkpoint(std::move(s));
}

void checkpoint::register_buffer(std::uint32_t g, void* addr, std::uint64_t bytes) {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "register");
  const std::string where = s_->where();
  if (!addr) fail(errc::bad_argument, fmt::format("{}: register: group {}: buffer address is null", where, g));
  if (bytes == 0) fail(errc::bad_size, fmt::format("{}: register: group {}: buffer size is 0", where, g));
  auto& mine = s_->registered[g];
  const auto recorded = s_->sizes(g);
  const std::size_t i = mine.size();
  if (i < recorded.size()) {
    if (recorded[i] != bytes)
      fail(errc::registration_mismatch,
           fmt::format("{}: register: group {} element {} was recorded with {} bytes, registered now with {}",
                       where, g, i, recorded[i], bytes));
    mine.push_back(addr);
    return;
  }
  const auto w = s_->words(g);
  if (const std::uint64_t e = s_->current_epoch(g); e != 0)
    fail(errc::registration_mismatch,
         fmt::format("{}: register: group {} was saved (epoch {}) with {} element(s); a new element {} would "
                     "have no saved data",
                     where, g, e, recorded.size(), i));
  if (i >= s_->h.elements)
    fail(errc::checkpoint_full, fmt::format("{}: register: group {} already holds its maximum of {} element(s)",
                                            where, g, s_->h.elements));
  const std::uint64_t used = s_->total_bytes(g);
  if (bytes > s_->h.bytes_per_copy - used)
    fail(errc::checkpoint_full,
         fmt::format("{}: register: group {} element {} of {} bytes does not fit: {} of the group's {} bytes are "
                     "used",
                     where, g, i, bytes, used, s_->h.bytes_per_copy));
  // The size first, then the count that makes it part of the record.
  w.sizes[i] = bytes;
  s_->meta->persist(std::uint64_t(reinterpret_cast<std::byte*>(&w.sizes[i]) - s_->meta->data()), 8);
  store_word(w.count, i + 1);
  s_->meta->persist(std::uint64_t(reinterpret_cast<std::byte*>(w.count) - s_->meta->data()), 8);
  mine.push_back(addr);
}

void checkpoint::save(std::uint32_t g, const launch_target& ex, save_order order) {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "save");
  s_->check_complete(g, "save");
  const auto w = s_->words(g);
  const std::uint64_t next = s_->current_epoch(g) + 1;
  // The working copy is the one the current epoch does not name, so the
  // consistent copy is untouched until the flip.
  const std::uint64_t copy = next % 2;
  const auto elements = s_->element_copies(g, copy, true);
  L::seal* const at = s_->seal_of(g, copy);
  const auto flip = [&] {
    store_word(w.epoch, next);
    s_->meta->persist(std::uint64_t(reinterpret_cast<std::byte*>(w.epoch) - s_->meta->data()), 8);
  };
  if (order == save_order::flip_then_copy) flip();
  if (!ex.on_gpu() && s_->file.prefers_file_writes()) {
    // A file on a device: one write and one sync for the copy and its
    // seal, as CAP-fs saves with one write and one fsync. The save is
    // durable once its seal is (open takes the newest sealed copy), so the
    // epoch word, which lets open tell a damaged newest copy from a save cut
    // short, is written after the sync with its writeback started and not
    // waited for: a store through the mapping would leave the metadata page
    // for the next save's sync to write. A word that lags is harmless (the
    // epoch is the newer of it and the newest seal).
    // The seal is summed from the buffers (host memory on this path: the
    // copy will hold their bytes) while the device writes the copy back.
    L::seal seal{next, 0};
    const auto pieces = gathered_pieces(elements, reinterpret_cast<std::byte*>(at),
                                        reinterpret_cast<const std::byte*>(&seal), sizeof seal);
    s_->file.write_durably(pieces, [] { crash_trigger::point(); }, [&] {
      seal.checksum = L::seal_checksum(next, s_->sizes(g), [&](std::size_t i) { return elements[i].src; });
    });
    if (order == save_order::copy_then_flip) {
      const pool::file_write word{reinterpret_cast<std::byte*>(w.epoch), reinterpret_cast<const std::byte*>(&next),
                                  sizeof next};
      s_->file.write_behind({&word, 1});
    }
  } else {
    // Persists are cheap here (PM, or tmpfs): copy, seal, then a durable
    // flip, each persisted before the next. The seal is summed from the
    // copy: a GPU's buffers may be device memory the host cannot read.
    const auto chunks = split(elements, chunk_bytes_for(s_->total_bytes(g), ex.cpu().workers()));
    parallel_copy(ex, chunks, s_->file.domain(), "gpmcp_checkpoint");
    const L::seal seal{next, L::seal_checksum(next, s_->sizes(g), [&](std::size_t i) { return elements[i].dst; })};
    store_word(&at->checksum, seal.checksum);
    store_word(&at->epoch, seal.epoch);
    s_->data[g].persist(std::uint64_t(reinterpret_cast<std::byte*>(at) - s_->data[g].data()), sizeof seal);
    crash_trigger::point();
    if (order == save_order::copy_then_flip) flip();
  }
  s_->newest_sealed[g] = next;
}

void checkpoint::restore(std::uint32_t g, const launch_target& ex) {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "restore");
  const std::uint64_t e = s_->current_epoch(g);
  if (e == 0)
    fail(errc::no_consistent_copy,
         fmt::format("{}: restore: group {} has no consistent copy (it was never saved)", s_->where(), g));
  s_->check_complete(g, "restore");
  if (s_->newest_sealed[g] < e)
    fail(errc::checksum_mismatch,
         fmt::format("{}: restore: group {}: the epoch word records {} save(s), but no copy holds a sealed save {} "
                     "(newest sealed: {}): that save's copy was not durable before its flip, or the file was damaged",
                     s_->where(), g, e, e, s_->newest_sealed[g]));
  const auto elements = s_->element_copies(g, e % 2, false);
  const auto chunks = split(elements, chunk_bytes_for(s_->total_bytes(g), ex.cpu().workers()));
  parallel_copy(ex, chunks, nullptr, "gpmcp_restore");
}

std::uint64_t checkpoint::epoch(std::uint32_t g) const {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "epoch");
  return s_->current_epoch(g);
}

std::uint32_t checkpoint::groups() const { return std::uint32_t(s_->h.groups); }
std::uint32_t checkpoint::elements_per_group() const { return std::uint32_t(s_->h.elements); }
std::uint64_t checkpoint::bytes_per_group_copy() const { return s_->h.bytes_per_copy; }

std::uint32_t checkpoint::recorded_elements(std::uint32_t g) const {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "recorded_elements");
  return std::uint32_t(s_->sizes(g).size());
}

std::uint32_t checkpoint::registered_elements(std::uint32_t g) const {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "registered_elements");
  return std::uint32_t(s_->registered[g].size());
}

const std::byte* checkpoint::element_copy(std::uint32_t g, std::uint32_t copy, std::uint32_t element) const {
  std::lock_guard lock(s_->mutex);
  s_->check_group(g, "element_copy");
  const auto sizes = s_->sizes(g);
  if (copy > 1 || element >= sizes.size())
    fail(errc::bad_argument, fmt::format("{}: element_copy: group {} has no copy {} element {} ({} recorded)",
                                         s_->where(), g, copy, element, sizes.size()));
  return s_->copy_base(g, copy) + L::element_offset(sizes, element);
}

const fs::path& checkpoint::path() const { return s_->file.path(); }
durability checkpoint::mode() const { return s_->file.mode(); }

}  // namespace gpmx::pm
