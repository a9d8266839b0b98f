#pragma once
// The executor's view of persistent memory: something that can make byte
// ranges durable (a PM pool implements it). PM views record each store a
// thread makes against its domain; persistency operations flush what the
// thread recorded. The executor knows nothing else about PM.
#include <boost/container/small_vector.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpmx {

class persist_domain {
 public:
  virtual ~persist_domain() = default;
  // Makes [p, p + bytes) durable; returns when it is.
  virtual void persist_range(const void* p, std::size_t bytes) const = 0;
  // Makes the given lines (sorted, distinct; each an address divided by
  // persist_line_bytes) durable. The default flushes each run of adjacent
  // lines; a domain whose flush unit is larger (msync: a page) merges more.
  virtual void persist_lines(const std::uintptr_t* lines, std::size_t n) const;
  // Whether a flush costs a system call and a device write (msync), so that
  // kernel threads waiting for durability should share one (group commit)
  // rather than each make its own. Cache-line flushes are not worth it.
  virtual bool shares_flushes() const { return false; }
  // The unit a flush works in: group commit merges lines whose units touch
  // into one range (msync writes pages; a journal wants lines only).
  virtual std::size_t flush_unit_bytes() const { return 4096; }
  // Whether a group flush writes exactly the bytes it is given (a journal
  // copies them into a record) rather than whole lines or pages: group
  // commit then hands over the bytes the waiting threads stored, not the
  // lines around them, and the record shrinks to what was stored.
  virtual bool persists_stored_bytes() const { return false; }
  // Makes [p, p + bytes) durable for requests that asked for `asked` bytes
  // of it (group commit's merged ranges cover gaps between threads' lines);
  // a domain that counts what it persisted counts `asked`.
  virtual void persist_merged(const void* p, std::size_t bytes, std::size_t asked) const {
    (void)asked;
    persist_range(p, bytes);
  }
  // One range of a group flush: [p, p + bytes) for requests of `asked` bytes.
  struct merged_range {
    const void* p;
    std::size_t bytes, asked;
  };
  // Makes every range durable (group commit's flusher hands over all the
  // ranges of one flush that lie in this domain, sorted and disjoint) and
  // returns the persist calls it made. The default makes one
  // persist_merged per range; a file domain may write them all back and
  // wait once, paying one device flush instead of one per range.
  virtual std::size_t persist_group(const merged_range* ranges, std::size_t n) const {
    for (std::size_t i = 0; i < n; ++i) persist_merged(ranges[i].p, ranges[i].bytes, ranges[i].asked);
    return n;
  }
};

// The unit in which the cpu executor tracks and flushes a thread's PM stores.
inline constexpr std::size_t persist_line_bytes = 64;

// Merges `lines` (sorted, distinct; each an address divided by
// persist_line_bytes) into ranges, joining lines whose flush units of
// `unit_bytes` touch (a page for msync, a line for a journal); each range's
// `asked` counts only its lines. Replaces the contents of `out`.
void merge_lines(const std::uintptr_t* lines, std::size_t n, std::size_t unit_bytes,
                 std::vector<persist_domain::merged_range>& out);

// Domains by the address range they hold, so that a kernel thread can make
// durable a range that other threads stored (thread_ctx::persist_range),
// knowing only its address. A pool registers itself while it is mapped.
void register_persist_domain(const persist_domain* d, const void* base, std::size_t bytes);
void unregister_persist_domain(const persist_domain* d);
// The domain that holds all of [p, p + bytes), or null.
const persist_domain* find_persist_domain(const void* p, std::size_t bytes);

// Told when a domain is registered or unregistered, e.g. so that the CUDA
// back end can make each pool's mapping reachable from the GPU. Called with
// the registry locked: a listener must not register domains itself.
class persist_domain_listener {
 public:
  virtual ~persist_domain_listener() = default;
  virtual void added(const persist_domain* d, const void* base, std::size_t bytes) = 0;
  virtual void removed(const persist_domain* d, const void* base, std::size_t bytes) = 0;
};
// Adds l, first telling it of every domain registered now (added); throws
// what l's added throws, leaving l out. Remove it before it is destroyed.
void add_persist_domain_listener(persist_domain_listener* l);
void remove_persist_domain_listener(persist_domain_listener* l);
// Makes every registered domain's whole range durable (a host-side flush
// after a GPU kernel wrote to them), counting none of it as asked for.
void persist_all_domains();

// Registers a domain for its lifetime.
class scoped_persist_domain {
 public:
  scoped_persist_domain(const persist_domain* d, const void* base, std::size_t bytes) : d_(d) {
    register_persist_domain(d, base, bytes);
  }
  ~scoped_persist_domain() { unregister_persist_domain(d_); }
  scoped_persist_domain(const scoped_persist_domain&) = delete;
  scoped_persist_domain& operator=(const scoped_persist_domain&) = delete;

 private:
  const persist_domain* d_;
};

// One cache line a thread has written and not yet persisted.
struct pm_line {
  const persist_domain* domain;
  std::uintptr_t line;  // address / persist_line_bytes
  std::uint64_t stored = ~std::uint64_t(0);  // bit b: the thread stored byte b of the line
  bool operator==(const pm_line&) const = default;
};
static_assert(persist_line_bytes == 64, "pm_line::stored has a bit per byte of a line");
// A thread's lines not yet persisted. Most threads hold a few between two
// persists (a gpKVS SET: eight), so they stay inline in the carrier's frame:
// no heap allocation each time a carrier enters a launch, and at a
// durability point they lie beside the stack the thread resumes on
// (docs/benchmarks.md, "Line records kept inline").
using pm_line_list = boost::container::small_vector<pm_line, 8>;

// The bytes of line `line` that a store of `bytes` bytes at address `a`
// covers, as pm_line::stored marks them.
constexpr std::uint64_t stored_bytes_of(std::uintptr_t a, std::size_t bytes, std::uintptr_t line) {
  const std::uintptr_t start = line * persist_line_bytes;
  const std::uintptr_t lo = a > start ? a - start : 0;
  const std::uintptr_t end = a + bytes - start;
  const std::uintptr_t hi = end < persist_line_bytes ? end : persist_line_bytes;
  const std::uint64_t upto = hi == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hi) - 1;
  return upto & ~((std::uint64_t(1) << lo) - 1);
}

}  // namespace gpmx
