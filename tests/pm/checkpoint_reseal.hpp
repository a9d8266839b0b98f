#pragma once
// Reseals a checkpoint copy after a test changed its bytes, as a writer that
// damaged the data and then sealed it would: the checks behind the seal
// (the workloads' own) are then what must catch the damage.
#include <cstring>
#include <filesystem>
#include <span>

#include "gpmx/pm/pool.hpp"
#include "pm/checkpoint_layout.hpp"

namespace gpmx::test {

inline void reseal_copy(const std::filesystem::path& cp_file, std::uint64_t group, std::uint64_t copy,
                        std::uint64_t epoch) {
  namespace L = pm::cp_layout;
  auto p = pm::pool::open(cp_file, pm::durability::none);
  std::byte* meta = p.find(L::meta_region).data();
  L::header h;
  std::memcpy(&h, meta, sizeof h);
  const L::group_words w = L::words_of(meta, h.elements, group);
  const std::span<const std::uint64_t> sizes(w.sizes, *w.count);
  std::byte* base = p.find(L::data_region(group)).data() + copy * h.copy_stride;
  const auto element = [&](std::size_t i) { return base + L::element_offset(sizes, i); };
  const L::seal seal{epoch, L::seal_checksum(epoch, sizes, element)};
  std::memcpy(base + L::seal_offset(h.copy_stride), &seal, sizeof seal);
}

}  // namespace gpmx::test
