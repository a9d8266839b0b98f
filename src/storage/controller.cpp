#include "gpmx/storage/controller.hpp"

#include <liburing.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

namespace {

struct finished {
  std::uint16_t cid = 0;
  std::uint16_t status = 0;
};

struct queue_state {
  queue_pair_view q;
  std::uint64_t fetched = 0;  // commands taken from the submission queue (not wrapped)
  std::uint64_t cq_tail = 0;  // completions posted (not wrapped)
  std::deque<finished> ready;  // waiting for room in the completion queue
};

// A command handed to io_uring; user_data is its index here.
struct in_flight {
  std::uint32_t queue = 0;
  std::uint16_t cid = 0;
  std::uint8_t opcode = 0;
  std::uint32_t bytes = 0;
  vtime fetched = 0, due = 0;  // timed: when it was fetched, when the device model completes it
  std::chrono::steady_clock::time_point started;  // otherwise: its fetch pass (io_uring gets it at the pass's end)
};

// Timed: a finished command waiting for the clock to reach its time.
struct held_completion {
  vtime due = 0, fetched = 0;
  std::uint64_t order = 0;  // fetch order: equal times post in it
  std::uint32_t queue = 0;
  finished f;
  bool operator>(const held_completion& o) const { return due != o.due ? due > o.due : order > o.order; }
};

// splitmix64: the deterministic order of posted completions.
std::uint64_t next_random(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

struct controller::impl {
  io_uring ring{};
  std::vector<queue_state> queues;
  std::vector<in_flight> slots;
  std::vector<std::uint32_t> free_slots;
  unsigned unsubmitted = 0;
  std::uint64_t rng = 0;
  std::optional<device_clock> device;  // timed only
  std::function<vtime()> clock;
  std::vector<held_completion> held;  // a min-heap on (due, order)
  std::uint64_t fetched = 0;
  // What progress() reports; written by the serving thread alone.
  struct counted {
    std::atomic<std::uint64_t> n{0};
    void add() { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
    std::uint64_t get() const { return n.load(std::memory_order_relaxed); }
  } taken, finished, posted;
  // The steady clock, read once per fetch pass or reap at its first
  // command (not timed): what each command's io_ns is measured with.
  std::optional<std::chrono::steady_clock::time_point> pass_time;
  std::chrono::steady_clock::time_point pass_clock() {
    if (!pass_time) pass_time = std::chrono::steady_clock::now();
    return *pass_time;
  }
};

controller::controller(block_device& device, std::vector<queue_pair_view> queues, controller_options o)
    : device_(device), name_("nvme:" + device.name()), impl_(std::make_unique<impl>()) {
  if (queues.empty()) throw storage_error(error_code::config, fmt::format("controller {}: no queue pairs", name_));
  if (o.ring_entries == 0 || o.ring_entries > 4096)
    throw storage_error(error_code::config,
                        fmt::format("controller {}: ring_entries {} is not 1 to 4096", name_, o.ring_entries));
  const int r = io_uring_queue_init(o.ring_entries, &impl_->ring, 0);
  if (r < 0)
    throw storage_error(error_code::io, fmt::format("controller {}: io_uring_queue_init: {} (the emulated controller "
                                                    "needs io_uring, Linux 5.1 or later)",
                                                    name_, std::strerror(-r)));
  for (const queue_pair_view& q : queues) {
    queue_state s;
    s.q = q;
    s.fetched = std::atomic_ref<std::uint64_t>(*q.sq_tail).load(std::memory_order_acquire);
    impl_->queues.push_back(std::move(s));
  }
  impl_->slots.resize(o.ring_entries);
  for (std::uint32_t i = o.ring_entries; i-- > 0;) impl_->free_slots.push_back(i);
  impl_->rng = o.seed;
  deterministic_ = o.deterministic;
  if (o.timing) {
    if (!o.clock)
      throw storage_error(error_code::config, fmt::format("controller {}: a device timing needs the executor's clock", name_));
    impl_->device.emplace(*o.timing);
    impl_->clock = std::move(o.clock);
  }
}

controller::~controller() { io_uring_queue_exit(&impl_->ring); }

namespace {

bool cq_has_room(const queue_state& s) {
  const std::uint32_t head = std::atomic_ref<std::uint32_t>(*s.q.cq_doorbell).load(std::memory_order_acquire);
  const std::uint32_t outstanding = std::uint32_t((s.cq_tail % s.q.depth + s.q.depth - head) % s.q.depth);
  return outstanding < s.q.depth - 1;
}

void post(queue_state& s, finished f) {
  nvme_completion* e = &s.q.cq[s.cq_tail % s.q.depth];
  e->dw0 = 0;
  e->dw1 = 0;
  e->sqhd = std::uint16_t(s.fetched % s.q.depth);
  e->sqid = s.q.qid;
  const std::uint32_t phase = detail::expected_phase(s.cq_tail, s.q.depth);
  const std::uint32_t word = std::uint32_t(f.cid) | (std::uint32_t((f.status << 1) | phase) << 16);
  std::atomic_ref<std::uint32_t>(*detail::completion_word(e)).store(word, std::memory_order_release);
  ++s.cq_tail;
}

}  // namespace

bool controller::post_ready() {
  bool posted = false;
  for (queue_state& s : impl_->queues) {
    while (!s.ready.empty() && cq_has_room(s)) {
      if (s.ready.front().status != 0) ++counters_.errors;
      post(s, s.ready.front());
      impl_->posted.add();
      s.ready.pop_front();
      posted = true;
    }
  }
  return posted;
}

bool controller::reap() {
  bool any = false;
  io_uring_cqe* cqe = nullptr;
  impl_->pass_time.reset();
  while (io_uring_peek_cqe(&impl_->ring, &cqe) == 0) {
    const auto index = std::uint32_t(io_uring_cqe_get_data64(cqe));
    const in_flight& f = impl_->slots[index];
    if (!impl_->device)
      counters_.io_ns += std::uint64_t(
          std::chrono::duration_cast<std::chrono::nanoseconds>(impl_->pass_clock() - f.started).count());
    std::uint16_t status = 0;
    if (cqe->res < 0 || (f.opcode != std::uint8_t(nvme_opcode::flush) && std::uint32_t(cqe->res) != f.bytes))
      status = std::uint16_t(nvme_status::data_transfer_error);
    else if (f.opcode == std::uint8_t(nvme_opcode::read))
      counters_.bytes_read += f.bytes;
    else if (f.opcode == std::uint8_t(nvme_opcode::write))
      counters_.bytes_written += f.bytes;
    if (impl_->device) {
      impl_->held.push_back({f.due, f.fetched, impl_->fetched++, f.queue, {f.cid, status}});
      std::push_heap(impl_->held.begin(), impl_->held.end(), std::greater<>());
    } else {
      impl_->queues[f.queue].ready.push_back({f.cid, status});
    }
    impl_->free_slots.push_back(index);
    if (!impl_->device) impl_->finished.add();  // timed: once the model's time has come (release_due)
    io_uring_cqe_seen(&impl_->ring, cqe);
    any = true;
  }
  return any;
}

controller_progress controller::progress() const {
  return {impl_->taken.get(), impl_->finished.get(), impl_->posted.get()};
}

std::size_t controller::in_flight_count() const { return impl_->slots.size() - impl_->free_slots.size(); }

// Hands one fetched command to io_uring, or completes it at once with an error.
void controller::start(std::uint32_t queue, const nvme_command& c) {
  ++counters_.commands;
  impl_->taken.add();
  queue_state& s = impl_->queues[queue];
  const auto op = nvme_opcode(c.opcode);
  // A command the device refuses completes at once with its status.
  const auto refuse = [&](nvme_status status) {
    s.ready.push_back({c.cid, std::uint16_t(status)});
    impl_->finished.add();
  };
  if (op != nvme_opcode::read && op != nvme_opcode::write && op != nvme_opcode::flush)
    return refuse(nvme_status::invalid_opcode);
  const std::uint64_t bytes = std::uint64_t(c.blocks()) * device_.lba_bytes();
  if (op != nvme_opcode::flush) {
    if (c.slba() >= device_.blocks() || c.blocks() > device_.blocks() - c.slba())
      return refuse(nvme_status::lba_out_of_range);
    if (c.prp1 == 0) return refuse(nvme_status::invalid_field);
  }
  io_uring_sqe* sqe = io_uring_get_sqe(&impl_->ring);
  if (sqe == nullptr) {  // every entry prepared and not yet submitted: submit them first
    io_uring_submit(&impl_->ring);
    impl_->unsubmitted = 0;
    sqe = io_uring_get_sqe(&impl_->ring);
  }
  const std::uint32_t index = impl_->free_slots.back();
  impl_->free_slots.pop_back();
  impl_->slots[index] = {queue, c.cid, c.opcode, std::uint32_t(bytes), 0, 0, {}};
  if (impl_->device) {
    const vtime now = impl_->clock();
    impl_->slots[index].fetched = now;
    impl_->slots[index].due = impl_->device->serve(now, bytes);
  } else {
    impl_->slots[index].started = impl_->pass_clock();
  }
  void* buffer = reinterpret_cast<void*>(std::uintptr_t(c.prp1));
  const std::uint64_t offset = c.slba() * device_.lba_bytes();
  switch (op) {
    case nvme_opcode::read:
      io_uring_prep_read(sqe, device_.fd(), buffer, unsigned(bytes), offset);
      ++counters_.reads;
      break;
    case nvme_opcode::write:
      io_uring_prep_write(sqe, device_.fd(), buffer, unsigned(bytes), offset);
      ++counters_.writes;
      break;
    case nvme_opcode::flush:
      io_uring_prep_fsync(sqe, device_.fd(), IORING_FSYNC_DATASYNC);
      ++counters_.flushes;
      break;
  }
  io_uring_sqe_set_data64(sqe, index);
  ++impl_->unsubmitted;
}

bool controller::fetch() {
  bool any = false;
  impl_->pass_time.reset();
  for (std::uint32_t qi = 0; qi < impl_->queues.size(); ++qi) {
    queue_state& s = impl_->queues[qi];
    const std::uint32_t tail = std::atomic_ref<std::uint32_t>(*s.q.sq_doorbell).load(std::memory_order_acquire);
    while (s.fetched % s.q.depth != tail && !impl_->free_slots.empty()) {
      const nvme_command c = s.q.sq[s.fetched % s.q.depth];
      ++s.fetched;
      start(qi, c);
      any = true;
    }
  }
  if (impl_->unsubmitted != 0) {
    const int r = io_uring_submit(&impl_->ring);
    if (r < 0)
      throw storage_error(error_code::io, fmt::format("controller {}: io_uring_submit: {}", name_, std::strerror(-r)));
    impl_->unsubmitted = 0;
  }
  return any;
}

// Waits for the I/O in flight: all of it (deterministic), or the first to
// finish, for at most 100 us (parallel: the doorbells may move meanwhile).
void controller::wait_for_io(bool all) {
  io_uring_cqe* cqe = nullptr;
  if (all) {
    while (in_flight_count() != 0) {
      const int r = io_uring_wait_cqe(&impl_->ring, &cqe);
      if (r < 0 && r != -EINTR)
        throw storage_error(error_code::io, fmt::format("controller {}: io_uring_wait_cqe: {}", name_, std::strerror(-r)));
      reap();
    }
    return;
  }
  __kernel_timespec wait{0, 100'000};
  io_uring_wait_cqe_timeout(&impl_->ring, &cqe, &wait);
}

// Timed: moves the held completions whose time has come to their queues.
bool controller::release_due() {
  if (!impl_->device) return false;
  bool any = false;
  const vtime now = impl_->clock();
  auto& held = impl_->held;
  while (!held.empty() && held.front().due <= now) {
    std::pop_heap(held.begin(), held.end(), std::greater<>());
    const held_completion h = held.back();
    held.pop_back();
    impl_->queues[h.queue].ready.push_back(h.f);
    impl_->finished.add();
    counters_.device_time += h.due - h.fetched;
    any = true;
  }
  return any;
}

agent::step_result controller::step() {
  const bool timed = impl_->device.has_value();
  bool progressed = reap();
  progressed |= release_due();
  progressed |= post_ready();
  progressed |= fetch();
  if (timed || deterministic_) {
    // Wait for all of it: completions then depend on the seed or the
    // virtual clock, not on how fast the file system was.
    wait_for_io(true);
    if (!timed)
      for (queue_state& s : impl_->queues)  // completions out of order, drawn from the seed
        for (std::size_t i = s.ready.size(); i > 1; --i)
          std::swap(s.ready[i - 1], s.ready[next_random(impl_->rng) % i]);
  } else if (!progressed && in_flight_count() != 0) {
    wait_for_io(false);
  }
  progressed |= reap();
  progressed |= release_due();
  progressed |= post_ready();
  if (progressed) return step_result::progressed;
  const bool pending = in_flight_count() != 0 || !impl_->held.empty() ||
                       std::any_of(impl_->queues.begin(), impl_->queues.end(), [](const queue_state& s) {
                         return !s.ready.empty();
                       });
  return pending ? step_result::waiting : step_result::idle;
}

}  // namespace gpmx::storage
