#pragma once
// Which rank checks which image, round after round. Round 0 deals image
// indices out as cards (index mod ranks). When ranks are lost (died, or
// silent too long), the next round gives each image a lost rank held to one
// of the ranks still there, picked by a hash of the index so that the lost
// share spreads evenly. Every rank computes the same owners from the same
// list of losses: no image lists travel.
#include <cstdint>
#include <vector>

namespace gpmx::scale {

class image_owners {
 public:
  explicit image_owners(unsigned ranks);

  unsigned ranks() const { return ranks_; }
  unsigned rounds() const { return unsigned(lost_.size()) + 1; }
  // Ranks still checking, in increasing order.
  const std::vector<unsigned>& alive() const { return alive_; }
  bool is_alive(unsigned rank) const;

  // Starts the next round: `lost` (alive ranks, none twice) hand their
  // images of the round just ended to the others. Throws gpmx::error
  // (usage) when that would leave no rank.
  void lose(const std::vector<unsigned>& lost);

  // The rank that checks `image` in the latest round.
  unsigned owner(std::uint64_t image) const { return owner_in(image, rounds() - 1); }
  // Whether `rank` checks `image` in the latest round: round 0, its own
  // cards; later rounds, only the images that the last losses handed on.
  bool checks_now(unsigned rank, std::uint64_t image) const;
  // Of images [0, made), those `rank` held in round `round`.
  std::uint64_t held(unsigned rank, unsigned round, std::uint64_t made) const;

 private:
  unsigned owner_in(std::uint64_t image, unsigned round) const;
  // Whether `rank` checks `image` in `round` (round 0: its cards; later: the
  // images the losses before that round handed on).
  bool checks_in(unsigned rank, std::uint64_t image, unsigned round) const;

  unsigned ranks_;
  std::vector<unsigned> alive_;
  std::vector<std::vector<unsigned>> lost_;   // per round after the first: ranks lost before it
  std::vector<std::vector<unsigned>> alive_in_;  // per round after the first: ranks alive in it
};

}  // namespace gpmx::scale
