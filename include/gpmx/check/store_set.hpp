#pragma once
// A set of granule-stores (see persist_order.hpp) as a dense bitset over
// their ids: predecessor sets, crash-point sets and images all use it, so
// unions and subset tests are word operations.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpmx::check {

class store_set {
 public:
  store_set() = default;
  // An empty set able to hold ids [0, universe).
  explicit store_set(std::size_t universe);
  // The set whose words() are `words`; throws check_error when they do not
  // fit the universe (a set from another order).
  static store_set from_words(std::size_t universe, std::vector<std::uint64_t> words);

  std::size_t universe() const { return universe_; }
  bool contains(std::size_t id) const;
  void insert(std::size_t id);
  void erase(std::size_t id);
  // Every id in [0, end).
  void insert_prefix(std::size_t end);

  store_set& operator|=(const store_set& other);
  store_set& operator&=(const store_set& other);
  // Removes every id of `other`.
  store_set& subtract(const store_set& other);

  std::size_t count() const;
  bool empty() const { return count() == 0; }
  bool is_subset_of(const store_set& other) const;
  bool intersects(const store_set& other) const;

  // The ids in increasing order.
  std::vector<std::size_t> ids() const;
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
  }

  const std::vector<std::uint64_t>& words() const { return words_; }
  bool operator==(const store_set&) const = default;

 private:
  std::size_t universe_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace gpmx::check
