#include "namespace_table.hpp"

#include <cstring>
#include <fmt/format.h>

#include "gpmx/pm/errors.hpp"

namespace gpmx::pm {

void namespace_table::format_empty(std::byte* copies, std::uint64_t table_bytes) {
  std::memset(copies, 0, 2 * table_bytes);  // copy B: all zero, fails its checksum
  format::table_head head{1, 0, 0, 0};
  head.checksum = format::table_checksum(head, nullptr);
  std::memcpy(copies, &head, sizeof head);
}

namespace_table::namespace_table(std::byte* copies, std::uint64_t table_bytes, std::uint64_t capacity,
                                 persist_fn persist, std::string where)
    : copies_(copies), table_bytes_(table_bytes), capacity_(capacity), persist_(std::move(persist)),
      where_(std::move(where)) {
  std::uint64_t seq[2] = {0, 0};
  std::vector<format::entry> e[2];
  const bool ok[2] = {read_copy(0, seq[0], e[0]), read_copy(1, seq[1], e[1])};
  if (!ok[0] && !ok[1])
    throw pm_error(errc::checksum_mismatch,
                   fmt::format("{}: both copies of the namespace table fail their checksums", where_));
  current_ = (ok[0] && (!ok[1] || seq[0] > seq[1])) ? 0 : 1;
  sequence_ = seq[current_];
  entries_ = std::move(e[current_]);
}

bool namespace_table::read_copy(int i, std::uint64_t& sequence, std::vector<format::entry>& out) const {
  format::table_head head;
  std::memcpy(&head, copy(i), sizeof head);
  if (head.count > capacity_) return false;  // torn or corrupt: do not trust the count
  out.resize(std::size_t(head.count));
  if (!out.empty()) std::memcpy(out.data(), copy(i) + sizeof head, out.size() * sizeof(format::entry));
  if (format::table_checksum(head, out.data()) != head.checksum) return false;
  sequence = head.sequence;
  return true;
}

void namespace_table::commit(std::vector<format::entry> next) {
  const int target = 1 - current_;
  format::table_head head{sequence_ + 1, next.size(), 0, 0};
  head.checksum = format::table_checksum(head, next.data());
  std::byte* dst = copy(target);
  if (!next.empty()) std::memcpy(dst + sizeof head, next.data(), next.size() * sizeof(format::entry));
  std::memcpy(dst, &head, sizeof head);
  persist_(dst, sizeof head + next.size() * sizeof(format::entry));
  current_ = target;
  sequence_ = head.sequence;
  entries_ = std::move(next);
}

}  // namespace gpmx::pm
