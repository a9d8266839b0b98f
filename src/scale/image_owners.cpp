#include "gpmx/scale/image_owners.hpp"

#include <algorithm>
#include <string>

#include "gpmx/support/error.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::scale {

image_owners::image_owners(unsigned ranks) : ranks_(ranks) {
  if (ranks == 0) throw error(error_code::usage, "image_owners: no rank to give images to");
  for (unsigned r = 0; r < ranks; ++r) alive_.push_back(r);
}

bool image_owners::is_alive(unsigned rank) const { return std::binary_search(alive_.begin(), alive_.end(), rank); }

void image_owners::lose(const std::vector<unsigned>& lost) {
  std::vector<unsigned> sorted = lost;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (!is_alive(sorted[i]) || (i > 0 && sorted[i] == sorted[i - 1]))
      throw error(error_code::usage, "image_owners: rank " + std::to_string(sorted[i]) +
                                         " is not a rank still checking, or is lost twice");
  if (sorted.size() >= alive_.size())
    throw error(error_code::usage, "image_owners: losing every rank leaves nobody to check the images");
  std::erase_if(alive_, [&](unsigned r) { return std::binary_search(sorted.begin(), sorted.end(), r); });
  lost_.push_back(std::move(sorted));
  alive_in_.push_back(alive_);
}

unsigned image_owners::owner_in(std::uint64_t image, unsigned round) const {
  unsigned owner = unsigned(image % ranks_);
  for (unsigned k = 0; k < round; ++k) {
    const std::vector<unsigned>& lost = lost_[k];
    if (!std::binary_search(lost.begin(), lost.end(), owner)) continue;
    const std::vector<unsigned>& heirs = alive_in_[k];
    owner = heirs[mix64(image ^ ((k + 1) * 0x9e3779b97f4a7c15ull)) % heirs.size()];
  }
  return owner;
}

bool image_owners::checks_in(unsigned rank, std::uint64_t image, unsigned round) const {
  if (owner_in(image, round) != rank) return false;
  if (round == 0) return true;
  const std::vector<unsigned>& lost = lost_[round - 1];
  return std::binary_search(lost.begin(), lost.end(), owner_in(image, round - 1));
}

bool image_owners::checks_now(unsigned rank, std::uint64_t image) const { return checks_in(rank, image, rounds() - 1); }

std::uint64_t image_owners::held(unsigned rank, unsigned round, std::uint64_t made) const {
  std::uint64_t n = 0;
  for (std::uint64_t i = 0; i < made; ++i) n += checks_in(rank, i, round) ? 1 : 0;
  return n;
}

}  // namespace gpmx::scale
