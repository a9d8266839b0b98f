#include "gpmx/scale/distributed_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "gpmx/check/findings.hpp"
#include "gpmx/scale/image_owners.hpp"
#include "gpmx/scale/rank_link.hpp"
#include "gpmx/support/byte_wire.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::scale {
namespace {

constexpr std::uint64_t done_marker = ~std::uint64_t(0);

// What rank 0 decided at the end of a round.
struct round_decision {
  bool done = false;
  std::vector<unsigned> lost;
};

std::string encode_decision(std::uint64_t next_round, const std::vector<unsigned>& lost) {
  byte_writer w;
  w.u64(next_round);
  w.u64s(std::vector<std::uint64_t>(lost.begin(), lost.end()));
  return w.take();
}

class protocol {
 public:
  protocol(rank_transport& ranks, const trace::trace& t, const check::image_target& target, check::check_options o,
           const distributed_options& d)
      : ranks_(ranks), link_(ranks, d.rank_timeout_s, [this](const rank_message& m) { take(m); }),
        owners_(ranks.size()), images_checked_(ranks.size(), 0) {
    const auto user_tick = o.tick;
    o.tick = [this, user_tick] {
      beat();
      if (user_tick) user_tick();
    };
    options_ = std::move(o);
    session_.emplace(t, target, options_);
  }

  std::optional<distributed_report> run() { return ranks_.rank() == 0 ? lead() : follow(); }

 private:
  // Rank 0: checks its own share, gathers the others' findings or declares
  // the silent ones lost, and starts another round for their images.
  std::optional<distributed_report> lead() {
    distributed_report out;
    out.ranks = ranks_.size();
    for (unsigned round = 0;; ++round) {
      round_ = round;
      parts_.push_back(session_->check_share(share_of(0)));
      images_checked_[0] += parts_.back().images_checked;
      const std::vector<unsigned> lost = gather(round);
      if (lost.empty()) {
        for (unsigned r : owners_.alive())
          if (r != 0) ranks_.post(r, tag_round, encode_decision(done_marker, {}));
        out.rounds = round + 1;
        break;
      }
      const std::uint64_t made = parts_.front().images_made;
      for (unsigned r : lost)
        out.lost.push_back({r, round, fmt::format("sent nothing for {:.0f} s", link_.silent_for(r)),
                            owners_.held(r, round, made), {}});
      owners_.lose(lost);
      for (unsigned r : lost) ranks_.give_up_on(r);
      for (lost_rank& l : out.lost)
        if (l.round == round) l.checked_again_by = owners_.alive();
      // The lost ranks hear it too: one that was only slow stops.
      for (unsigned r = 1; r < ranks_.size(); ++r)
        if (owners_.is_alive(r) || std::find(lost.begin(), lost.end(), r) != lost.end())
          ranks_.post(r, tag_round, encode_decision(round + 1, lost));
    }
    out.report = session_->report(parts_);
    out.images_checked = images_checked_;
    out.bytes_sent = ranks_.bytes_sent();
    out.bytes_received = ranks_.bytes_received();
    out.findings_bytes = findings_bytes_;
    return out;
  }

  // Waits for the findings of every other rank still checking; returns
  // those silent too long. Ranks at work say so every second, so the
  // silent are lost once nobody else is still to be heard from.
  std::vector<unsigned> gather(unsigned round) {
    for (;;) {
      beat();
      std::vector<unsigned> waiting, silent;
      for (unsigned r : owners_.alive()) {
        if (r == 0 || has_findings_.count({round, r})) continue;
        waiting.push_back(r);
        if (link_.is_silent(r)) silent.push_back(r);
      }
      if (waiting.empty()) return {};
      if (silent.size() == waiting.size()) return silent;
      rank_link::pause();
    }
  }

  // Every other rank: checks its share, sends its findings, and waits for
  // rank 0 to say whether another round is needed.
  std::optional<distributed_report> follow() {
    const unsigned me = ranks_.rank();
    for (unsigned round = 0;; ++round) {
      round_ = round;
      if (!owners_.is_alive(me)) {
        ranks_.give_up_on(0);  // the job goes on without this rank: do not wait for the others at the end
        fmt::print(stderr, "gpmx: rank {}: rank 0 stopped waiting for this rank (silent for over {:.0f} s); "
                           "its images were checked by the others\n", me, link_.timeout_s());
        return std::nullopt;
      }
      const check::findings f = session_->check_share(share_of(me));
      byte_writer w;
      w.u64(round);
      w.text(check::encode_findings(f));
      decision_.reset();
      ranks_.send(0, tag_findings, w.take(), std::chrono::duration<double>(link_.timeout_s()));
      for (;;) {
        beat();
        if (decision_) break;
        if (link_.is_silent(0)) {
          ranks_.give_up_on(0);
          throw error(error_code::io, fmt::format("rank {}: rank 0 sent nothing for {:.0f} s (it died or hangs); "
                                                  "no report will come", me, link_.silent_for(0)));
        }
        rank_link::pause();
      }
      if (decision_->done) return std::nullopt;
      owners_.lose(decision_->lost);
      for (unsigned r : decision_->lost) ranks_.give_up_on(r);
    }
  }

  check::image_share share_of(unsigned rank) const {
    return [this, rank](std::uint64_t image) { return owners_.checks_now(rank, image); };
  }

  void beat() {
    if (ranks_.rank() == 0) return link_.beat(owners_.alive());
    link_.beat({0});
  }

  void take(const rank_message& m) {
    if (m.tag == tag_findings && ranks_.rank() == 0) take_findings(m);
    if (m.tag == tag_round && ranks_.rank() != 0 && m.from == 0) take_decision(m);
  }

  void take_findings(const rank_message& m) {
    const std::string what = fmt::format("findings from rank {}", m.from);
    byte_reader r(m.bytes, what);
    const std::uint64_t round = r.u64();
    const std::string bytes = r.text();
    r.expect_end();
    findings_bytes_ += m.bytes.size();
    // Late findings of a rank already lost: its images went to the others.
    if (round != round_ || !owners_.is_alive(m.from)) return;
    check::findings f = check::decode_findings(bytes, what);
    images_checked_[m.from] += f.images_checked;
    has_findings_.insert({unsigned(round), m.from});
    parts_.push_back(std::move(f));
  }

  void take_decision(const rank_message& m) {
    byte_reader r(m.bytes, "a round decision from rank 0");
    const std::uint64_t next = r.u64();
    const std::vector<std::uint64_t> lost = r.u64s();
    r.expect_end();
    round_decision d;
    d.done = next == done_marker;
    for (std::uint64_t l : lost) d.lost.push_back(unsigned(l));
    decision_ = std::move(d);
  }

  rank_transport& ranks_;
  rank_link link_;
  check::check_options options_;
  std::optional<check::check_session> session_;
  image_owners owners_;
  unsigned round_ = 0;
  std::vector<check::findings> parts_;                    // rank 0: every share used so far
  std::set<std::pair<unsigned, unsigned>> has_findings_;  // rank 0: (round, rank)
  std::vector<std::uint64_t> images_checked_;
  std::uint64_t findings_bytes_ = 0;
  std::optional<round_decision> decision_;  // the others: rank 0's word on the round
};

}  // namespace

std::optional<distributed_report> check_across_ranks(rank_transport& ranks, const trace::trace& t,
                                                     const check::image_target& target, const check::check_options& o,
                                                     const distributed_options& d) {
  if (o.stop_at_first)
    throw check::check_error("stopping at the first failure cannot be split among ranks: each would stop at its own",
                             error_code::config);
  if (!(d.rank_timeout_s > 0)) throw check::check_error("the rank timeout must be positive", error_code::config);
  return protocol(ranks, t, target, o, d).run();
}

}  // namespace gpmx::scale
