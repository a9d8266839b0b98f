#include "page_read_tracker.hpp"

#include "access_width.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <stdexcept>
#include <unordered_set>

#if defined(__SANITIZE_THREAD__)
#define GPMX_READ_TRACKING 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GPMX_READ_TRACKING 0
#endif
#endif
#if !defined(GPMX_READ_TRACKING)
#if defined(__x86_64__) && defined(__linux__)
#define GPMX_READ_TRACKING 1
#else
#define GPMX_READ_TRACKING 0
#endif
#endif

namespace gpmx::check {
namespace {

// What the signal handlers see: plain arrays and atomics only (no
// allocation, no locks in a handler).
struct access_note {
  std::uintptr_t address;
  std::uint32_t bytes;  // the instruction's access width (access_width.hpp)
  bool write;
};
constexpr int max_regions = 64;
constexpr int max_stepping = 4;  // pages one instruction may have opened
struct tracking_state {
  std::atomic<bool> active{false};
  std::atomic<bool> overflowed{false};
  access_note* notes = nullptr;
  std::size_t capacity = 0;
  std::atomic<std::size_t> count{0};
  std::atomic<std::uintptr_t> begin[max_regions]{};
  std::atomic<std::uintptr_t> end[max_regions]{};
  std::uintptr_t page = 4096;
  struct sigaction old_segv {}, old_trap {};
};
tracking_state g;
std::atomic<page_read_tracker*> live{nullptr};

void open_every_pool() {
  for (int i = 0; i < max_regions; ++i) {
    const std::uintptr_t b = g.begin[i].load(), e = g.end[i].load();
    if (e > b) ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ | PROT_WRITE);
  }
}

#if GPMX_READ_TRACKING
thread_local std::uintptr_t stepping[max_stepping];
thread_local int stepping_count = 0;
thread_local std::uintptr_t stepping_ip = 0;

bool inside_a_pool(std::uintptr_t a) {
  for (int i = 0; i < max_regions; ++i)
    if (a >= g.begin[i].load(std::memory_order_relaxed) && a < g.end[i].load(std::memory_order_relaxed)) return true;
  return false;
}

// A signal that is not ours goes where it went before the tracker.
void pass_on(int sig, siginfo_t* si, void* ctx, const struct sigaction& old) {
  if (old.sa_flags & SA_SIGINFO) {
    old.sa_sigaction(sig, si, ctx);
  } else if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) {
    ::sigaction(sig, &old, nullptr);  // the faulting instruction runs again and gets the old action
  } else {
    old.sa_handler(sig);
  }
}

constexpr greg_t trap_flag = 0x100;

void on_fault(int sig, siginfo_t* si, void* ctx) {
  const auto a = reinterpret_cast<std::uintptr_t>(si->si_addr);
  if (!g.active.load(std::memory_order_acquire) || !inside_a_pool(a)) return pass_on(sig, si, ctx, g.old_segv);
  auto* uc = static_cast<ucontext_t*>(ctx);
  const std::size_t i = g.count.fetch_add(1, std::memory_order_relaxed);
  if (i >= g.capacity) {  // too many: stop tracking rather than lose the run
    g.overflowed.store(true);
    g.active.store(false);
    open_every_pool();
    return;
  }
  // A second fault of one instruction (its access crosses into the next
  // page) is the rest of an access already noted.
  const auto ip = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const bool rest = stepping_count > 0 && stepping_ip == ip;
  stepping_ip = ip;
  if (rest) {
    g.notes[i] = {a, 0, false};  // notes nothing
  } else {
    // page-fault error code bit 1: a write
    g.notes[i] = {a, access_width(reinterpret_cast<const std::uint8_t*>(ip)), (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0};
  }
  const std::uintptr_t page = a & ~(g.page - 1);
  ::mprotect(reinterpret_cast<void*>(page), g.page, PROT_READ | PROT_WRITE);
  if (stepping_count < max_stepping) stepping[stepping_count++] = page;
  uc->uc_mcontext.gregs[REG_EFL] |= trap_flag;  // one instruction, then SIGTRAP
}

void on_step(int sig, siginfo_t* si, void* ctx) {
  if (stepping_count == 0) return pass_on(sig, si, ctx, g.old_trap);
  if (g.active.load(std::memory_order_acquire))
    for (int i = 0; i < stepping_count; ++i) ::mprotect(reinterpret_cast<void*>(stepping[i]), g.page, PROT_NONE);
  stepping_count = 0;
  static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_EFL] &= ~trap_flag;
}
#endif

}  // namespace

bool page_read_tracker::available() { return GPMX_READ_TRACKING != 0; }

page_read_tracker::page_read_tracker(std::uint32_t granularity, std::size_t max_accesses) : granularity_(granularity) {
  if (!available())
    throw std::runtime_error("read tracking needs x86-64 Linux and a build without ThreadSanitizer");
  if (granularity == 0 || (granularity & (granularity - 1)) != 0)
    throw std::runtime_error(fmt::format("read tracking: granularity {} is not a power of two", granularity));
  page_read_tracker* none = nullptr;
  if (!live.compare_exchange_strong(none, this)) throw std::runtime_error("read tracking: another tracker is live");
  // Reserved, not touched: only the notes made use memory.
  void* notes = ::mmap(nullptr, max_accesses * sizeof(access_note), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (notes == MAP_FAILED) {
    live.store(nullptr);
    throw std::runtime_error("read tracking: cannot reserve memory for the access notes");
  }
  g.notes = static_cast<access_note*>(notes);
  g.capacity = max_accesses;
  g.count.store(0);
  g.overflowed.store(false);
  g.page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  for (int i = 0; i < max_regions; ++i) g.begin[i].store(0), g.end[i].store(0);
#if GPMX_READ_TRACKING
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_fault;
  ::sigaction(SIGSEGV, &sa, &g.old_segv);
  sa.sa_sigaction = on_step;
  ::sigaction(SIGTRAP, &sa, &g.old_trap);
#endif
  g.active.store(true, std::memory_order_release);
}

page_read_tracker::~page_read_tracker() {
  finish();
  ::munmap(g.notes, g.capacity * sizeof(access_note));
  g.notes = nullptr;
  g.capacity = 0;
  live.store(nullptr);
}

void page_read_tracker::add(const void* base, std::uint64_t length, const std::string& path,
                            std::uint64_t file_offset) {
  if (finished_) return;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  regions_.push_back({b, length, path, file_offset, g.count.load(), false});
  for (int i = 0; i < max_regions; ++i)
    if (g.end[i].load() == 0) {
      g.begin[i].store(b);
      g.end[i].store(b + length);
      ::mprotect(const_cast<void*>(base), length, PROT_NONE);
      return;
    }
  regions_.back().untracked = true;
  reads_.complete = false;
  reads_.note = fmt::format("more than {} pools were mapped at once: '{}' was not tracked", max_regions, path);
}

void page_read_tracker::remove(const void* base) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  for (std::size_t k = 0; k < regions_.size(); ++k) {
    if (regions_[k].base != b) continue;
    for (int i = 0; i < max_regions; ++i)
      if (g.begin[i].load() == b && g.end[i].load() != 0) {
        ::mprotect(reinterpret_cast<void*>(b), regions_[k].length, PROT_READ | PROT_WRITE);
        g.begin[i].store(0);
        g.end[i].store(0);
      }
    fold(regions_[k], g.count.load());
    regions_.erase(regions_.begin() + std::ptrdiff_t(k));
    return;
  }
}

void page_read_tracker::fold(const region& r, std::size_t notes_end) {
  if (r.untracked) return;
  const std::size_t end = std::min(notes_end, g.capacity);
  auto [at, added] = file_index_.try_emplace(r.path, reads_.files.size());
  if (added) {
    reads_.files.push_back({r.path, {}});
    first_access_.emplace_back();
  }
  std::unordered_map<std::uint64_t, bool>& first = first_access_[at->second];
  for (std::size_t i = r.first_note; i < end; ++i) {
    const access_note n = g.notes[i];
    if (n.address < r.base || n.address >= r.base + r.length || n.bytes == 0) continue;
    const std::uint64_t from = n.address - r.base;
    const std::uint64_t to = std::min<std::uint64_t>(from + n.bytes, r.length);
    for (std::uint64_t offset = from & ~std::uint64_t(granularity_ - 1); offset < to; offset += granularity_)
      if (first.try_emplace(r.file_offset + offset, n.write).second && !n.write)
        reads_.files[at->second].offsets.push_back(r.file_offset + offset);
  }
}

pool_reads page_read_tracker::finish() {
  if (!finished_) {
    finished_ = true;
    const std::size_t end = g.count.load();
    g.active.store(false, std::memory_order_release);
    open_every_pool();
    for (const region& r : regions_) fold(r, end);
    for (int i = 0; i < max_regions; ++i) g.begin[i].store(0), g.end[i].store(0);
#if GPMX_READ_TRACKING
    ::sigaction(SIGSEGV, &g.old_segv, nullptr);
    ::sigaction(SIGTRAP, &g.old_trap, nullptr);
#endif
    if (g.overflowed.load()) {
      reads_.complete = false;
      reads_.note = fmt::format("tracking stopped after {} accesses", g.capacity);
    }
  }
  return reads_;
}

}  // namespace gpmx::check
