#include "bam/storage_stack.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps::bam {

storage_stack::storage_stack(cpu::executor& ex, const std::filesystem::path& dir, const storage_layout& l,
                             stack_options o)
    : layout_(l) {
  if (o.queues_per_device == 0 || o.queues_per_device > 1024)
    throw config_error(fmt::format("queues={} must be 1 to 1024", o.queues_per_device));
  std::vector<const storage::block_device*> devices;
  std::vector<storage::queue_pair_view> queues;  // device-major, as the cache's ranges want them
  for (std::uint32_t d = 0; d < l.devices; ++d) {
    devices_.push_back(std::make_unique<storage::block_device>(l.device_path(dir, d), fmt::format("device{}", d),
                                                               storage::device_options{.lba_bytes = lba_bytes}));
    devices.push_back(devices_.back().get());
    std::vector<storage::queue_pair_view> mine;
    for (std::uint32_t q = 0; q < o.queues_per_device; ++q) {
      queue_memory_.push_back(
          std::make_unique<storage::queue_pair_memory>(std::uint16_t(q + 1), storage::queue_options{.depth = o.depth}));
      mine.push_back(queue_memory_.back()->view());
    }
    queues.insert(queues.end(), mine.begin(), mine.end());
    const std::uint32_t n = o.controllers_per_device;
    const auto shares =
        storage::share_queue_pairs(mine, n, std::min<std::uint32_t>(256, o.queues_per_device * o.depth));
    for (std::uint32_t c = 0; c < n; ++c) {
      controllers_.push_back(std::make_unique<storage::controller>(
          *devices_.back(), shares[c].queues,
          storage::controller_options{.ring_entries = shares[c].ring_entries,
                                      .deterministic = o.deterministic,
                                      .seed = o.seed + std::uint64_t(d) * n + c,
                                      .timing = o.timing,
                                      .clock = o.timing ? std::function<vtime()>([&ex] { return ex.virtual_time(); })
                                                        : std::function<vtime()>()}));
    }
  }
  cache_ = std::make_unique<storage::page_cache>(
      storage::cache_options{.name = "bam", .line_bytes = l.line_bytes, .lines = o.cache_lines});
  for (const stored_array& a : l.arrays) cache_->add_range(a.pages, a.first_lba, devices, queues);
  // Attached last: a controller serves from the moment it is attached.
  for (auto& c : controllers_) attachments_.push_back(std::make_unique<cpu::agent_attachment>(ex.attach(*c)));
}

storage_stack::~storage_stack() { attachments_.clear(); }

std::uint32_t storage_stack::range_of(std::string_view name) const {
  for (std::uint32_t i = 0; i < layout_.arrays.size(); ++i)
    if (layout_.arrays[i].name == name) return i;
  throw config_error(fmt::format("no stored array named '{}'", name));
}

io_totals storage_stack::io() const {
  io_totals t;
  for (const auto& c : controllers_) {
    const storage::controller_counters& k = c->counters();
    t.commands += k.commands;
    t.reads += k.reads;
    t.writes += k.writes;
    t.flushes += k.flushes;
    t.bytes_read += k.bytes_read;
    t.bytes_written += k.bytes_written;
  }
  return t;
}

bool storage_stack::direct() const {
  for (const auto& d : devices_)
    if (!d->direct()) return false;
  return true;
}

}  // namespace gpmx::apps::bam
