// The host thread's part of a trace: pools mapped while recording, the host
// stores found by comparing each pool with a shadow copy, host persists, the
// stores and persists of agents beside a launch, and the stores a kernel
// made without a PM view.
#include <algorithm>
#include <cstring>

#include "gpmx/trace/recorder.hpp"

namespace gpmx::trace {
namespace {

// Compared page by page: most of a pool is unchanged between two host
// persists, and memcmp of a page is far cheaper than a byte loop.
constexpr std::uint64_t page_bytes = 4096;
// The unit host stores are recorded in (a divisor of page_bytes and of max_value_bytes).
constexpr std::uint64_t host_word_bytes = 8;
static_assert(page_bytes % host_word_bytes == 0 && max_value_bytes % host_word_bytes == 0);

}  // namespace

void recorder::watch_pool(const void* base, std::uint64_t length, std::string_view path) {
  const auto* b = static_cast<const std::uint8_t*>(base);
  pool_image image;
  image.path = std::string(path);
  image.base = reinterpret_cast<std::uintptr_t>(base);
  image.length = length;
  image.first_event = trace_.events.size();
  image.end_event = no_event;  // set when it is unwatched
  image.before.assign(b, b + length);
  watched_.push_back({trace_.pools.size(), b, length, image.before});
  trace_.pools.push_back(std::move(image));
}

void recorder::unwatch_pool(const void* base) {
  const auto it = std::find_if(watched_.begin(), watched_.end(),
                               [base](const watched_pool& w) { return w.base == base; });
  if (it == watched_.end()) return;
  // A mapping's destructor calls this, perhaps while an exception unwinds
  // (a trace that outgrew memory): what cannot be recorded here must not
  // throw; take() reports it.
  try {
    event as;
    as.launch = host_launch;
    as.text = intern("the pool's unmapping");
    record_changes(*it, as);
  } catch (...) {
    if (!unrecorded_) unrecorded_ = std::current_exception();
  }
  trace_.pools[it->image].end_event = trace_.events.size();
  watched_.erase(it);
}

void recorder::stop_watching() {
  while (!watched_.empty()) unwatch_pool(watched_.back().base);
}

void recorder::host_persist(const void* p, std::uint64_t bytes, const source_loc& loc) {
  if (in_kernel_ && agent_ == no_string) return;
  if (in_kernel_) return agent_persist(p, bytes, loc);
  event as;
  as.launch = host_launch;
  record_persist(as, event_kind::host_persist, p, bytes, loc, host_po_);
}

void recorder::agent_begin(std::string_view agent) {
  if (in_kernel_) agent_ = intern(agent);
}

void recorder::agent_end(std::string_view) { agent_ = no_string; }

// What changed in the pools since the kernel's stores recorded so far is
// the agent's: the schedule's thread runs no kernel thread during a step.
void recorder::agent_persist(const void* p, std::uint64_t bytes, const source_loc& loc) {
  absorb_kernel_stores();
  event as;
  as.launch = launches_;
  as.block = agent_block;
  as.warp = agent_;
  record_persist(as, event_kind::persist_range, p, bytes, loc, agent_po_[agent_]);
}

void recorder::record_persist(event as, event_kind kind, const void* p, std::uint64_t bytes, const source_loc& loc,
                              std::uint64_t& po) {
  as.text = intern_file(loc.file_name());
  as.line = loc.line();
  record_changes(as);  // numbers the stores it finds from the same counter, before the persist
  as.kind = kind;
  as.address = reinterpret_cast<std::uintptr_t>(p);
  as.bytes = bytes;
  as.po = po++;
  trace_.events.push_back(as);
}

void recorder::record_changes(const event& as) {
  for (watched_pool& w : watched_) record_changes(w, as);
}

void recorder::record_changes(watched_pool& w, const event& as) {
  for (std::uint64_t page = 0; page < w.length; page += page_bytes) {
    const std::uint64_t end = std::min(w.length, page + page_bytes);
    if (std::memcmp(w.base + page, w.shadow.data() + page, end - page) == 0) continue;
    // Changed bytes are recorded a whole aligned word at a time: which
    // bytes of a word happen to keep their value (a zero byte of a random
    // uuid) then cannot change how a run splits into events, so a program
    // with a fixed seed gives the same events and positions every time.
    auto word_changed = [&](std::uint64_t w0) {
      const std::uint64_t w1 = std::min(end, w0 + host_word_bytes);
      return std::memcmp(w.base + w0, w.shadow.data() + w0, w1 - w0) != 0;
    };
    for (std::uint64_t at = page; at < end;) {
      if (!word_changed(at)) {
        at = std::min(end, at + host_word_bytes);
        continue;
      }
      // A run of changed words, cut into stores of at most max_value_bytes.
      std::uint64_t stop = at;
      while (stop < end && stop - at < max_value_bytes && word_changed(stop)) stop = std::min(end, stop + host_word_bytes);
      event e = as;
      e.kind = event_kind::pm_write;
      e.address = reinterpret_cast<std::uintptr_t>(w.base) + at;
      e.bytes = stop - at;
      e.value_bytes = std::uint8_t(stop - at);
      std::memcpy(e.data.data(), w.base + at, stop - at);
      std::memcpy(w.shadow.data() + at, w.base + at, stop - at);
      e.po = as.launch == host_launch   ? host_po_++
             : as.block == agent_block ? agent_po_[as.warp]++
                                       : next_po_[unviewed_block]++;
      trace_.events.push_back(e);
      at = stop;
    }
  }
}

void recorder::absorb_kernel_stores() {
  for (; absorbed_upto_ < trace_.events.size(); ++absorbed_upto_) {
    const event& e = trace_.events[absorbed_upto_];
    if (e.kind != event_kind::pm_write || e.block == agent_block) continue;
    for (watched_pool& w : watched_) {
      const auto base = reinterpret_cast<std::uintptr_t>(w.base);
      if (e.address < base || e.address + e.bytes > base + w.length) continue;
      const std::uint64_t off = e.address - base;
      std::memcpy(w.shadow.data() + off, w.base + off, e.bytes);
    }
  }
}

}  // namespace gpmx::trace
