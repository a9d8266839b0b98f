#include "gpmx/check/read_tracker.hpp"

#include <stdexcept>

#include "page_read_tracker.hpp"

namespace gpmx::check {

bool read_tracker::available() { return page_read_tracker::available(); }

read_tracker::read_tracker(std::uint32_t granularity, std::size_t max_accesses) {
  if (host_observer())
    throw std::runtime_error("read tracking: another host observer (a trace recorder or a timed run) is installed");
  pages_ = std::make_unique<page_read_tracker>(granularity, max_accesses);
  set_host_observer(this);
}

read_tracker::~read_tracker() { finish(); }

void read_tracker::pool_mapped(const void* base, std::uint64_t length, std::string_view path) {
  pages_->add(base, length, std::string(path));
}

void read_tracker::pool_unmapped(const void* base) { pages_->remove(base); }

pool_reads read_tracker::finish() {
  if (!result_) {
    result_ = pages_->finish();
    if (host_observer() == this) set_host_observer(nullptr);
  }
  return *result_;
}

}  // namespace gpmx::check
