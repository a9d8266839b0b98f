// The trace recorder: program order per thread, the string table, and which
// prel each flag last received (what a pacq reads from).
#include "gpmx/trace/recorder.hpp"

#include <string>
#include <utility>

namespace gpmx::trace {

void recorder::kernel_begin(std::string_view name, dim3 grid, dim3 block, const source_loc& site) {
  event host;
  host.launch = host_launch;
  host.text = intern(name);  // host stores found here were made before this launch (line 0)
  record_changes(host);
  next_po_.clear();
  agent_po_.clear();
  in_kernel_ = true;
  launch_first_event_ = trace_.events.size();
  absorbed_upto_ = launch_first_event_;
  event e;
  e.kind = event_kind::kernel_begin;
  e.launch = launches_;
  e.text = intern(name);
  e.line = site.line();  // the launch's site: line here, file in value (event.hpp)
  e.value = site.line() != 0 ? intern_file(site.file_name()) : no_string;
  set_kernel_dims(e, grid, block);
  trace_.events.push_back(e);
}

void recorder::kernel_end(std::string_view) {
  absorb_kernel_stores();
  event unviewed;
  unviewed.launch = launches_;
  unviewed.block = unviewed_block;
  unviewed.text = trace_.events[launch_first_event_].text;  // the kernel's name
  record_changes(unviewed);
  in_kernel_ = false;
  event e;
  e.kind = event_kind::kernel_end;
  e.text = trace_.events[launch_first_event_].text;  // the kernel's name, as on its kernel_begin
  e.launch = launches_++;
  trace_.events.push_back(e);
}

std::uint64_t recorder::append(event e, const thread_coords& who, const source_loc& loc) {
  e.launch = launches_;
  e.block = who.block;
  e.warp = who.warp;
  e.lane = who.lane;
  e.po = next_po_[who.global_id]++;
  e.text = intern_file(loc.file_name());
  e.line = loc.line();
  const std::uint64_t index = trace_.events.size();
  trace_.events.push_back(e);
  const bool writes_flag = e.kind == event_kind::prel ||
                           (e.kind == event_kind::atomic && e.op != atomic_op::load) ||
                           e.kind == event_kind::pm_write;
  if (writes_flag) note_flag_write(e.address, index);
  return index;
}

void recorder::note_flag_write(std::uint64_t address, std::uint64_t index) {
  // Plain PM stores and atomics replace the flag's value: a later pacq then
  // reads from no prel. Only addresses already used as flags are tracked.
  if (trace_.events[index].kind == event_kind::prel) last_flag_write_[address] = index;
  else if (auto it = last_flag_write_.find(address); it != last_flag_write_.end()) it->second = no_event;
}

std::uint64_t recorder::release_read(std::uint64_t flag, std::uint64_t value) const {
  const auto it = last_flag_write_.find(flag);
  if (it == last_flag_write_.end() || it->second == no_event) return no_event;
  return trace_.events[it->second].value == value ? it->second : no_event;
}

std::uint32_t recorder::intern(std::string_view s) {
  const auto [it, added] = string_ids_.try_emplace(std::string(s), std::uint32_t(trace_.strings.size()));
  if (added) trace_.strings.emplace_back(s);
  return it->second;
}

std::uint32_t recorder::intern_file(const char* file) {
  if (!file || !*file) return no_string;
  // One file name is one string literal, so its pointer finds it without hashing the text.
  if (const auto it = file_ids_.find(file); it != file_ids_.end()) return it->second;
  const std::uint32_t id = intern(file);
  file_ids_.emplace(file, id);
  return id;
}

trace recorder::take() {
  if (unrecorded_) std::rethrow_exception(std::exchange(unrecorded_, nullptr));
  event host;
  host.launch = host_launch;
  host.text = intern("the end of the recording");
  record_changes(host);
  for (const watched_pool& w : watched_) trace_.pools[w.image].end_event = trace_.events.size();
  trace out = std::move(trace_);
  trace_ = {};
  next_po_.clear();
  last_flag_write_.clear();
  file_ids_.clear();
  string_ids_.clear();
  launches_ = 0;
  host_po_ = 0;
  absorbed_upto_ = 0;
  agent_po_.clear();
  // Pools still watched continue in the next trace from their present bytes.
  for (watched_pool& w : watched_) {
    pool_image image = out.pools[w.image];
    image.first_event = 0;
    image.end_event = no_event;
    image.before = w.shadow;
    w.image = trace_.pools.size();
    trace_.pools.push_back(std::move(image));
  }
  return out;
}

}  // namespace gpmx::trace
