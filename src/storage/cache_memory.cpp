#include "gpmx/storage/cache_memory.hpp"

#include <atomic>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

page_cache::page_cache(cache_options o) : name_(std::move(o.name)) {
  const std::uint32_t b = o.line_bytes;
  if (b < 512 || b > 65536 || (b & (b - 1)) != 0)
    throw storage_error(error_code::config,
                        fmt::format("cache '{}': line size {} is not a power of two from 512 to 65536", name_, b));
  if (o.lines == 0) throw storage_error(error_code::config, fmt::format("cache '{}': no lines", name_));
  if (o.max_ranges == 0) throw storage_error(error_code::config, fmt::format("cache '{}': max_ranges is 0", name_));
  const std::size_t bytes = std::size_t(o.lines) * b;
  try {
    lines_ = std::make_unique<host_visible_block>((bytes + 4095) / 4096 * 4096, 4096);
  } catch (const std::bad_alloc&) {
    throw storage_error(error_code::capacity,
                        fmt::format("cache '{}': cannot allocate {} lines of {} bytes", name_, o.lines, b));
  }
  slot_owner_.assign(o.lines, 0);
  counters_.assign(1, cache_counters{});
  clock_.assign(1, 0);
  read_turn_.assign(1, 0);
  ranges_.reserve(o.max_ranges);
  failure_ = std::make_unique<host_visible_block>(sizeof(command_failure), alignof(command_failure));
  view_.failure = reinterpret_cast<command_failure*>(failure_->data());
  view_.lines = lines_->data();
  view_.slot_owner = slot_owner_.data();
  view_.clock = clock_.data();
  view_.read_turn = read_turn_.data();
  view_.counters = counters_.data();
  view_.ranges = ranges_.data();
  view_.line_bytes = b;
  view_.slots = o.lines;
}

std::uint32_t page_cache::add_range(std::uint64_t pages, std::uint64_t first_lba,
                                    const std::vector<const block_device*>& devices,
                                    const std::vector<queue_pair_view>& queues, distribution layout) {
  if (ranges_.size() == ranges_.capacity())
    throw storage_error(error_code::capacity,
                        fmt::format("cache '{}': already holds its {} ranges (cache_options::max_ranges)", name_,
                                    ranges_.capacity()));
  if (pages == 0 || pages >= (1ull << 40))
    throw storage_error(error_code::config, fmt::format("cache '{}': a range of {} pages", name_, pages));
  if (devices.empty() || queues.empty() || queues.size() % devices.size() != 0)
    throw storage_error(error_code::config,
                        fmt::format("cache '{}': {} queue pairs for {} devices (need a positive multiple)", name_,
                                    queues.size(), devices.size()));
  auto s = std::make_unique<range_storage>();
  for (const block_device* d : devices) {
    if (view_.line_bytes % d->lba_bytes() != 0)
      throw storage_error(error_code::config, fmt::format("cache '{}': line of {} bytes is not whole blocks of device '{}' ({} bytes)",
                                                          name_, view_.line_bytes, d->name(), d->lba_bytes()));
    const std::uint64_t per_line = view_.line_bytes / d->lba_bytes();
    const std::uint64_t pages_here = layout == distribution::replicate ? pages : (pages + devices.size() - 1) / devices.size();
    if (first_lba > d->blocks() || pages_here > (d->blocks() - first_lba) / per_line)
      throw storage_error(error_code::config,
                          fmt::format("cache '{}': device '{}' has {} blocks; the range needs {} from block {}", name_,
                                      d->name(), d->blocks(), pages_here * per_line, first_lba));
    if (d->lba_bytes() != devices.front()->lba_bytes())
      throw storage_error(error_code::config, fmt::format("cache '{}': the devices of one range differ in block size", name_));
    s->names.push_back(d->name());
  }
  for (const std::string& n : s->names) s->name_ptrs.push_back(n.c_str());
  s->state.assign(pages, 0);
  s->page_slot.assign(pages, 0);
  s->queues.assign(queues.begin(), queues.end());
  range_view r;
  r.state = s->state.data();
  r.page_slot = s->page_slot.data();
  r.pages = pages;
  r.first_lba = first_lba;
  r.blocks_per_page = view_.line_bytes / devices.front()->lba_bytes();
  r.devices = std::uint32_t(devices.size());
  r.layout = layout;
  r.queues_per_device = std::uint32_t(queues.size() / devices.size());
  r.queues = s->queues.data();
  r.device_names = s->name_ptrs.data();
  ranges_.push_back(r);
  storage_.push_back(std::move(s));
  view_.range_count = std::uint32_t(ranges_.size());
  return view_.range_count - 1;
}

void page_cache::check_array(std::uint32_t range, std::uint64_t count, std::size_t element_bytes) const {
  if (range >= ranges_.size())
    throw storage_error(error_code::usage, fmt::format("cache '{}': no range {}", name_, range));
  if (view_.line_bytes % element_bytes != 0)
    throw storage_error(error_code::config, fmt::format("cache '{}': elements of {} bytes do not divide its {}-byte lines",
                                                        name_, element_bytes, view_.line_bytes));
  if (count > ranges_[range].pages * (view_.line_bytes / element_bytes))
    throw storage_error(error_code::config, fmt::format("cache '{}': {} elements of {} bytes exceed range {} ({} pages)",
                                                        name_, count, element_bytes, range, ranges_[range].pages));
}

cache_counters page_cache::counters() const { return counters_.front(); }

std::uint64_t page_cache::dirty_pages() const {
  std::uint64_t n = 0;
  for (const range_view& r : ranges_)
    for (std::uint64_t p = 0; p < r.pages; ++p)
      if ((r.state[p] & page_valid) && (r.state[p] & page_dirty)) ++n;
  return n;
}

}  // namespace gpmx::storage

namespace gpmx::storage {

bool page_cache::failed() const {
  return std::atomic_ref<std::uint32_t>(view_.failure->taken).load(std::memory_order_acquire) != 0;
}

bool page_cache::failed_all_pinned() const { return failed() && view_.failure->all_pinned != 0; }

void page_cache::clear_failure() const {
  view_.failure->all_pinned = 0;
  std::atomic_ref<std::uint32_t>(view_.failure->taken).store(0, std::memory_order_release);
}

std::string page_cache::describe_failure(const std::string& launch_error) const {
  const command_failure& f = *view_.failure;
  const char* device = f.range < ranges_.size() && f.device < ranges_[f.range].devices
                           ? ranges_[f.range].device_names[f.device]
                           : "(unknown)";
  return fmt::format("{} (the launch: {})", describe_command_failure(device, f.opcode, f.slba, f.blocks, f.status),
                     launch_error);
}

std::string page_cache::describe_all_pinned(const std::string& deadlock) const {
  return fmt::format("cache '{}' ({} lines of {} bytes): every line was pinned while threads waited for one; "
                     "threads hold more pages pinned at once than the cache has lines (give it more lines, or "
                     "release cursors before taking new ones). What saw it: {}",
                     name_, view_.slots, view_.line_bytes, deadlock);
}

}  // namespace gpmx::storage
