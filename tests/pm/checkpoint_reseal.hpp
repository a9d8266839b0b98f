#pragma once
// Reseals a checkpoint copy after a test changed its bytes, as a writer that
// damaged the data and then sealed it would: the checks behind the seal
// (the workloads' own) are then what must catch the damage.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gpmx/pm/pool.hpp"
#include "pm/checkpoint_layout.hpp"
#include "pm/content_hash.hpp"

namespace gpmx::test {

inline void reseal_copy(const std::filesystem::path& cp_file, std::uint64_t group, std::uint64_t copy,
                        std::uint64_t epoch) {
  namespace L = pm::cp_layout;
  auto p = pm::pool::open(cp_file, pm::durability::none);
  const std::byte* meta = p.find(L::meta_region).data();
  L::header h;
  std::memcpy(&h, meta, sizeof h);
  const std::byte* record = meta + L::header_bytes + group * h.group_record_bytes;
  std::uint64_t count = 0;
  std::memcpy(&count, record + 128, 8);
  std::vector<std::uint64_t> sizes(count);
  std::memcpy(sizes.data(), record + 136, 8 * count);
  std::byte* base = p.find(L::data_region(group)).data() + copy * h.copy_stride;
  L::seal seal{epoch, pm::content_hash(&epoch, 8, 0x5be0cd19137e2179ull)};
  for (std::size_t i = 0; i < count; ++i)
    seal.checksum = pm::content_hash(base + L::element_offset(sizes, i), sizes[i], seal.checksum);
  std::memcpy(base + L::seal_offset(h.copy_stride), &seal, sizeof seal);
}

}  // namespace gpmx::test
