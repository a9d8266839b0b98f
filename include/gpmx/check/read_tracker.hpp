#pragma once
// Records which granules of the PM pools a process maps it reads before it
// writes them: the checker runs a failing image's recovery under it to say
// which stores recovery read and which of those were lost (docs/check.md).
//
// How: every pool mapped while the tracker lives is protected (PROT_NONE);
// an access faults, the handler notes the address and whether it was a
// write, opens the page and single-steps the one instruction (x86-64's trap
// flag), then closes the page again. An access covers the granules of as many
// bytes as its instruction's encoding says (a 16- or 32-byte vector load
// in memcpy covers several). Slow (two signals per access to a pool), so it is meant for one
// recovery in a child process, never for a run. Syscalls given a pointer
// into a protected pool fail with EFAULT instead of faulting: recovery code
// that does that cannot be tracked.
//
// One tracker at a time per process; it installs itself as the host
// observer (gpmx/exec/observer.hpp) to hear of mappings, so no executor
// with an observer may be made while it lives.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/check/pool_reads.hpp"
#include "gpmx/exec/observer.hpp"

namespace gpmx::check {

class page_read_tracker;

class read_tracker final : public observer {
 public:
  // Whether this build and machine can track reads (x86-64 Linux, no
  // ThreadSanitizer, which defers signals).
  static bool available();

  // Throws std::runtime_error when unavailable, when another tracker lives
  // or another host observer is installed. At most `max_accesses` accesses
  // are noted; after that tracking stops and the result says so.
  explicit read_tracker(std::uint32_t granularity = 8, std::size_t max_accesses = std::size_t(1) << 20);
  ~read_tracker() override;
  read_tracker(const read_tracker&) = delete;
  read_tracker& operator=(const read_tracker&) = delete;

  // Opens every pool and stops noting accesses (call when recovery is done,
  // before the consistency check reads everything), and returns the
  // granules whose first access was a read, per pool file.
  pool_reads finish();

  // --- as the host observer ---
  std::uint8_t observed_spaces() const override { return 0; }
  std::uint8_t scheduling_spaces() const override { return 0; }
  bool thread_safe() const override { return true; }
  void pool_mapped(const void* base, std::uint64_t length, std::string_view path) override;
  void pool_unmapped(const void* base) override;

 private:
  std::unique_ptr<page_read_tracker> pages_;
  std::optional<pool_reads> result_;
};

}  // namespace gpmx::check
