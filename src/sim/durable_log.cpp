#include "gpmx/sim/durable_log.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <numeric>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {
namespace fs = std::filesystem;

void durable_log::mapped(const void* base, std::uint64_t length, std::string_view path, picos now) {
  // A path mapped again is the same file: a file replaced at its path
  // during the run would be indistinguishable (inode numbers are reused at
  // once, and birth times are only as fine as the file system's clock tick).
  std::uint32_t v = std::uint32_t(files_.size());
  for (std::uint32_t i = 0; i < files_.size(); ++i)
    if (files_[i].path == fs::path(path)) v = i;
  const auto* b = static_cast<const std::byte*>(base);
  if (v == files_.size()) {
    files_.push_back({fs::path(path), now, std::vector<std::byte>(b, b + length)});
  } else if (files_[v].first.size() < length) {
    // Mapped larger than before: the new tail is as the file holds it now.
    std::vector<std::byte>& first = files_[v].first;
    const std::size_t old = first.size();
    first.insert(first.end(), b + old, b + length);
  }
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  live_.push_back({begin, begin + length, v});
}

void durable_log::unmapped(const void* base) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  std::erase_if(live_, [b](const live_mapping& m) { return m.begin == b; });
}

bool durable_log::inside(const void* p, std::size_t bytes) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return std::any_of(live_.begin(), live_.end(), [&](const live_mapping& m) { return a >= m.begin && a + bytes <= m.end; });
}

const durable_log::live_mapping& durable_log::mapping_of(const void* p, std::size_t bytes) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const live_mapping& m : live_)
    if (a >= m.begin && a + bytes <= m.end) return m;
  throw error(error_code::usage, fmt::format("durable_log: {} bytes at {} are not inside a mapped pool", bytes, p));
}

void durable_log::kernel_began() {
  before_kernel_.clear();
  for (const live_mapping& m : live_) {
    const auto* b = reinterpret_cast<const std::byte*>(m.begin);
    before_kernel_.emplace_back(b, b + (m.end - m.begin));
  }
}

void durable_log::kernel_ended(picos at) {
  // Pools are neither mapped nor unmapped while a kernel runs.
  if (before_kernel_.size() != live_.size()) return;
  constexpr std::size_t gap = 16;  // changed runs this close are one piece
  for (std::size_t k = 0; k < live_.size(); ++k) {
    const auto* now = reinterpret_cast<const std::byte*>(live_[k].begin);
    const std::vector<std::byte>& was = before_kernel_[k];
    std::size_t i = 0;
    while (i < was.size()) {
      constexpr std::size_t block = 64;  // skip equal blocks at memcmp speed
      if (i % block == 0 && i + block <= was.size() && std::memcmp(now + i, was.data() + i, block) == 0) {
        i += block;
        continue;
      }
      if (now[i] == was[i]) {
        ++i;
        continue;
      }
      std::size_t end = i + 1, same = 0;
      for (std::size_t j = end; j < was.size() && same < gap; ++j) {
        if (now[j] != was[j]) end = j + 1, same = 0;
        else ++same;
      }
      durable(take(now + i, std::uint32_t(end - i)), at);
      i = end;
    }
  }
  before_kernel_.clear();
}

durable_log::piece_id durable_log::take(const void* p, std::uint32_t bytes) {
  const live_mapping& m = mapping_of(p, bytes);
  const auto* b = static_cast<const std::byte*>(p);
  pieces_.push_back({m.file, bytes, std::uint64_t(reinterpret_cast<std::uintptr_t>(p) - m.begin), data_.size()});
  data_.insert(data_.end(), b, b + bytes);
  return pieces_.size() - 1;
}

void durable_log::durable(piece_id id, picos at) {
  piece& p = pieces_.at(id);
  if (p.durable == not_durable) p.durable = at;
}

std::size_t durable_log::pieces_not_durable() const {
  return std::size_t(std::count_if(pieces_.begin(), pieces_.end(), [](const piece& p) { return p.durable == not_durable; }));
}

std::vector<picos> durable_log::durable_times() const {
  std::vector<picos> t;
  for (const piece& p : pieces_)
    if (p.durable != not_durable) t.push_back(p.durable);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

std::size_t durable_log::pieces_durable_by(picos t) const {
  return std::size_t(std::count_if(pieces_.begin(), pieces_.end(), [t](const piece& p) { return p.durable <= t; }));
}

std::vector<durable_log::file_image> durable_log::files_at(picos t) const {
  std::vector<std::size_t> order(pieces_.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::erase_if(order, [&](std::size_t k) { return pieces_[k].durable > t; });
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pieces_[a].durable < pieces_[b].durable; });
  std::vector<file_image> out;
  for (const pool_file& f : files_) out.push_back({f.path, f.since <= t, f.since <= t ? f.first : std::vector<std::byte>{}});
  for (const std::size_t k : order) {
    const piece& p = pieces_[k];
    std::vector<std::byte>& bytes = out[p.file].bytes;
    if (p.offset + p.bytes > bytes.size()) bytes.resize(p.offset + p.bytes);
    std::copy_n(data_.begin() + std::ptrdiff_t(p.data), p.bytes, bytes.begin() + std::ptrdiff_t(p.offset));
  }
  return out;
}

}  // namespace gpmx::sim
