#pragma once
// What the simulated NVM holds at each moment of a timed run: every pool
// file as it was when first mapped, and every piece of PM data the model
// made durable, with its bytes and the simulated time it became durable.
// files_at(t) rebuilds the pool files a crash at t leaves (`gpmx sim
// --crash-at`); one run gives images at any number of times.
//
// A path mapped again is the same file, first mapped at the first mapping;
// at a time before that the file did not exist. A file replaced at its
// path during the run (a new file renamed over it) is not told apart.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

inline constexpr picos not_durable = ~picos(0);

class durable_log {
 public:
  using piece_id = std::uint64_t;

  // A pool file of `length` bytes mapped at `base` at simulated time `now`.
  void mapped(const void* base, std::uint64_t length, std::string_view path, picos now);
  void unmapped(const void* base);
  // Whether [p, p + bytes) lies in one mapped pool.
  bool inside(const void* p, std::size_t bytes) const;

  // Keeps [p, p + bytes) as it is now (a store's value, just made); durable
  // once durable() says when. Throws gpmx::error (usage) outside a mapped pool.
  piece_id take(const void* p, std::uint32_t bytes);
  // The piece reached the persistence domain at `at` (the first call counts).
  void durable(piece_id id, picos at);

  // A kernel begins and ends. Its stores through raw pointers (the
  // checkpoint copy's memcpy) pass no PM view, so neither the timing model
  // nor the tracker sees them: the bytes of every mapped pool that differ
  // at the kernel's end from its beginning are taken as durable at `at`,
  // the kernel's end, when the model has drained every write. (Bytes a
  // view's store also changed get their final value then, which is what
  // the NVM holds once everything is drained.)
  void kernel_began();
  void kernel_ended(picos at);

  struct file_image {
    std::filesystem::path path;
    bool exists = false;          // false: the file was not there at that time
    std::vector<std::byte> bytes;
  };
  // Every path mapped during the run, as a crash at `t` leaves it: its
  // first bytes with the pieces durable by `t` applied in the
  // order they became durable (ties: the order they were taken).
  std::vector<file_image> files_at(picos t) const;

  std::size_t pieces() const { return pieces_.size(); }
  std::uint32_t bytes_of(piece_id id) const { return pieces_.at(id).bytes; }
  picos durable_time(piece_id id) const { return pieces_.at(id).durable; }
  std::size_t pieces_not_durable() const;
  // Every time at which some piece became durable, in order: the images
  // change only there, so a crash at each gives every image the run left.
  std::vector<picos> durable_times() const;
  std::size_t pieces_durable_by(picos t) const;
  std::uint64_t bytes_taken() const { return data_.size(); }

 private:
  struct pool_file {
    std::filesystem::path path;
    picos since = 0;               // first mapped then
    std::vector<std::byte> first;  // its bytes then
  };
  struct live_mapping {
    std::uintptr_t begin = 0, end = 0;
    std::uint32_t file = 0;
  };
  struct piece {
    std::uint32_t file = 0;
    std::uint32_t bytes = 0;
    std::uint64_t offset = 0;  // in the file
    std::uint64_t data = 0;    // in data_
    picos durable = not_durable;
  };
  const live_mapping& mapping_of(const void* p, std::size_t bytes) const;

  std::vector<pool_file> files_;
  std::vector<std::vector<std::byte>> before_kernel_;  // per live mapping
  std::vector<live_mapping> live_;
  std::vector<piece> pieces_;
  std::vector<std::byte> data_;
};

}  // namespace gpmx::sim
