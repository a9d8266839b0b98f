// Dense bitset operations of store_set.
#include "gpmx/check/store_set.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "gpmx/check/model.hpp"

namespace gpmx::check {

store_set::store_set(std::size_t universe) : universe_(universe), words_((universe + 63) / 64, 0) {}

store_set store_set::from_words(std::size_t universe, std::vector<std::uint64_t> words) {
  store_set s(universe);
  const bool tail_clear = universe % 64 == 0 || words.empty() || (words.back() >> (universe % 64)) == 0;
  if (words.size() != s.words_.size() || !tail_clear)
    throw check_error("a set of " + std::to_string(words.size()) + " words does not fit " +
                      std::to_string(universe) + " granule-stores: it comes from another persist order");
  s.words_ = std::move(words);
  return s;
}

bool store_set::contains(std::size_t id) const {
  return id < universe_ && (words_[id / 64] >> (id % 64) & 1) != 0;
}

void store_set::insert(std::size_t id) {
  if (id >= universe_)
    throw std::out_of_range("store_set: id " + std::to_string(id) + " outside a set of " +
                            std::to_string(universe_) + " granule-stores");
  words_[id / 64] |= std::uint64_t(1) << (id % 64);
}

void store_set::erase(std::size_t id) {
  if (id < universe_) words_[id / 64] &= ~(std::uint64_t(1) << (id % 64));
}

void store_set::insert_prefix(std::size_t end) {
  if (end > universe_) end = universe_;
  for (std::size_t w = 0; w < end / 64; ++w) words_[w] = ~std::uint64_t(0);
  if (end % 64 != 0) words_[end / 64] |= (std::uint64_t(1) << (end % 64)) - 1;
}

store_set& store_set::operator|=(const store_set& other) {
  if (other.universe_ != universe_) throw std::invalid_argument("store_set: union of sets over different universes");
  for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
  return *this;
}

store_set& store_set::operator&=(const store_set& other) {
  if (other.universe_ != universe_) throw std::invalid_argument("store_set: intersection of sets over different universes");
  for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
  return *this;
}

store_set& store_set::subtract(const store_set& other) {
  if (other.universe_ != universe_) throw std::invalid_argument("store_set: difference of sets over different universes");
  for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= ~other.words_[w];
  return *this;
}

std::size_t store_set::count() const {
  std::size_t n = 0;
  for (std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
  return n;
}

bool store_set::is_subset_of(const store_set& other) const {
  if (other.universe_ != universe_) return false;
  for (std::size_t w = 0; w < words_.size(); ++w)
    if ((words_[w] & ~other.words_[w]) != 0) return false;
  return true;
}

bool store_set::intersects(const store_set& other) const {
  const std::size_t n = std::min(words_.size(), other.words_.size());
  for (std::size_t w = 0; w < n; ++w)
    if ((words_[w] & other.words_[w]) != 0) return true;
  return false;
}

std::vector<std::size_t> store_set::ids() const {
  std::vector<std::size_t> out;
  for_each([&](std::size_t id) { out.push_back(id); });
  return out;
}

}  // namespace gpmx::check
