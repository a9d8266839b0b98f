#include "gpmx/check/check_run.hpp"

#include <system_error>

#include "gpmx/support/interrupt_cleanup.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include "gpmx/check/crash_point.hpp"
#include "gpmx/check/findings.hpp"
#include "gpmx/check/materialize.hpp"
#include "gpmx/check/persist_order.hpp"
#include "gpmx/support/elapsed.hpp"
#include "image_slot.hpp"
#include "read_explanation.hpp"

namespace gpmx::check {
namespace {

namespace fs = std::filesystem;

std::uint64_t hash_set(const store_set& s) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::uint64_t w : s.words()) h = (h ^ w) * 0x100000001b3ull + (h >> 29);
  return h;
}

// Crash points from the first launch on: the set-up before it (creating the
// files, writing the parameters) has nothing to recover yet.
std::vector<std::uint64_t> crash_positions(const trace::trace& t, const check_options& o, std::size_t& total) {
  if (!o.at.empty()) {  // given positions are checked as given, set-up included
    for (std::uint64_t p : o.at)
      if (p > t.events.size())
        throw check_error(fmt::format("crash position {} lies beyond the trace's {} events", p,
                                             t.events.size()));
    total = o.at.size();
    return o.at;
  }
  std::vector<std::uint64_t> all =
      o.every_n ? every_n_crash_points(t, o.every_n) : ordering_crash_points(t);
  std::uint64_t first_launch = 0;
  for (std::uint64_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].kind == trace::event_kind::kernel_begin) {
      first_launch = i;
      break;
    }
  std::erase_if(all, [&](std::uint64_t p) { return p < first_launch; });
  total = all.size();
  if (o.max_crash_points == 0 || all.size() <= o.max_crash_points) return all;
  std::vector<std::uint64_t> some;
  for (std::size_t k = 0; k < o.max_crash_points; ++k)
    some.push_back(all[k * all.size() / o.max_crash_points]);
  some.back() = all.back();  // always the end of the run
  return some;
}

std::string crash_site(const trace::trace& t, std::uint64_t position) {
  if (position >= t.events.size()) return "at the end of the run";
  const trace::event& e = t.events[position];
  if (e.kind == trace::event_kind::kernel_end)
    return fmt::format("just before the end of kernel '{}' (event #{})", t.text_of(e), position);
  return fmt::format("just before the {} at {}", trace::to_string(e.kind), event_site(t, position));
}

// The file:line pairs that make two failures one cause.
std::string cause_key(const trace::trace& t, const missing_order& m) {
  auto site = [&](std::uint64_t i) {
    if (i == trace::no_event) return std::string("-");
    const trace::event& e = t.events[i];
    return fmt::format("{}:{}:{}", t.text_of(e), e.line, trace::is_host(e) ? "h" : trace::is_agent(e) ? "a" : "");
  };
  if (m.torn) return "torn|" + site(m.lost_event);  // every tear of one store is one cause
  return fmt::format("{}|{}|{}|{}|{}", m.scoped_persistency_bug, site(m.persisted_event), site(m.lost_event),
                     site(m.release_event), site(m.handoff_event));
}

// Files beside the traced pools that are not pools themselves, copied as
// they are into every image: only the regular files of the directories that
// hold a pool (not their subdirectories: a pool at the top of a large tree
// must not copy the tree), and only those under root.
std::vector<fs::path> other_files(const fs::path& root, const trace::trace& t) {
  std::vector<fs::path> out;
  if (root.empty() || !fs::is_directory(root)) return out;
  const fs::path top = fs::absolute(root).lexically_normal();
  std::unordered_set<std::string> pools;
  std::set<fs::path> dirs;
  for (const trace::pool_image& p : t.pools) {
    const fs::path path = fs::absolute(p.path).lexically_normal();
    pools.insert(path.string());
    const fs::path rel = path.parent_path().lexically_relative(top);
    if (!rel.empty() && *rel.begin() != ".." && fs::is_directory(path.parent_path())) dirs.insert(path.parent_path());
  }
  for (const fs::path& dir : dirs)
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && !pools.contains(fs::absolute(entry.path()).lexically_normal().string()))
        out.push_back(fs::absolute(entry.path()).lexically_normal().lexically_relative(top));
  return out;
}

std::vector<std::byte> read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::byte> out(fs::file_size(path));
  in.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size()));
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}', which every image must hold", path.string()));
  return out;
}

}  // namespace

class checker {
 public:
  // The image server is forked first, while the process is small; then the
  // persist orders are built once for every share.
  checker(const trace::trace& t, const image_target& target, const check_options& o)
      : t_(t),
        o_(o),
        jobs_(target, o.jobs, o.timeout_s, o.images_per_worker),
        root_(fs::absolute(o.root).lexically_normal()),
        t0_(std::chrono::steady_clock::now()) {
    order_ = std::make_unique<persist_order>(t_, order_options{o_.model, o_.granularity, o_.max_granule_stores});
    if (o_.model == persist_model::sbrp)
      promoted_ = std::make_unique<persist_order>(
          t_, order_options{persist_model::sbrp_promoted, o_.granularity, o_.max_granule_stores});
    // Read once: every image holds them unchanged.
    for (const fs::path& rel : other_files(root_, t_)) copy_bytes_.emplace_back(rel, read_whole(root_ / rel));
    for (unsigned s = 0; s < jobs_.capacity(); ++s) {
      free_slots_.push_back(s);
      slots_.push_back(std::make_unique<image_slot>(o_.work_dir / fmt::format("image-{}", s)));
    }
  }

  findings check_share(const image_share& share) {
    begin_share(share);
    const std::vector<std::uint64_t> positions = crash_positions(t_, o_, r_.crash_points_total);
    r_.crash_points = positions.size();
    if (positions.size() < r_.crash_points_total) r_.complete = r_.covers_all = false;

    // mixed: every crash point's single drops first, so that what drop-one
    // finds is found as soon as before; then pairs, then random multi-loss
    // images, with what the budget leaves.
    const bool mixed = o_.strategy.strategy == image_strategy::mixed;
    const std::vector<search_pass> passes = mixed ? std::vector<search_pass>{search_pass::single,
                                                                             search_pass::pairs,
                                                                             search_pass::multi_loss}
                                                  : std::vector<search_pass>{search_pass::single};
    for (std::size_t p = 0; p < passes.size() && !stopped(); ++p) {
      pass_ = passes[p];
      pass_used_ = 0;
      if (p > 0 && !budget_left()) continue;  // no crash state worth building again
      for_each_state(positions, [&](const crash_state& at, std::size_t done) {
        check_crash_point(at, positions.size() - done);
        if (o_.progress) o_.progress((double(p) + double(done + 1) / double(positions.size())) / double(passes.size()));
        if (o_.tick) o_.tick();
      });
    }
    while (auto f = jobs_.next()) finish(*f);
    if (stopped()) r_.complete = r_.covers_all = false;
    return share_findings();
  }

  // The report of the merged findings: the causes in the order of their
  // first images, unexplained ones recovered again under read tracking,
  // the smallest images kept.
  check_report report(const std::vector<findings>& parts) {
    const findings merged = merge_findings(parts);
    r_.failed_images = merged.failed_images;
    r_.failures.clear();
    smallest_.clear();
    by_cause_.clear();
    for (const cause_findings& c : merged.causes) {
      by_cause_[c.key] = r_.failures.size();
      smallest_[r_.failures.size()] = store_set::from_words(order_->size(), c.smallest);
      r_.failures.push_back(c.failure);
    }
    explain_unexplained_by_reads();
    keep_failing_images();
    fs::remove_all(o_.work_dir);  // scratch: every child has been reaped
    r_.seconds = seconds_since(t0_);
    return r_;
  }

 private:
  struct pending {
    store_set image;
    std::uint64_t position = 0;
    unsigned slot = 0;
    store_set kept;  // may-stores kept
  };

  enum class search_pass { single, pairs, multi_loss };

  // What one share starts from: nothing made, nothing found.
  void begin_share(const image_share& share) {
    share_ = share;
    r_ = check_report{};
    r_.model = to_string(o_.model);
    r_.strategy = to_string(o_.strategy.strategy);
    r_.events = t_.events.size();
    r_.granule_stores = order_->size();
    seen_.clear();
    by_cause_.clear();
    smallest_.clear();
    first_tag_.clear();
    smallest_tag_.clear();
    next_tag_ = 0;
    checked_ = 0;
  }

  findings share_findings() const {
    findings out;
    out.events = r_.events;
    out.granule_stores = r_.granule_stores;
    out.images_made = r_.images;
    out.images_checked = checked_;
    out.failed_images = r_.failed_images;
    for (const auto& [key, i] : by_cause_)
      out.causes.push_back({key, first_tag_[i], smallest_tag_[i], r_.failures[i], smallest_.at(i).words()});
    std::sort(out.causes.begin(), out.causes.end(),
              [](const cause_findings& a, const cause_findings& b) { return a.first_image < b.first_image; });
    return out;
  }

  // Calls f(state, index) for every position in order, building crash
  // states a chunk at a time (each holds three sets over every store).
  template <class F>
  void for_each_state(const std::vector<std::uint64_t>& positions, F&& f) {
    constexpr std::size_t chunk = 256;
    for (std::size_t at = 0; at < positions.size() && !stopped(); at += chunk) {
      const std::vector<std::uint64_t> some(positions.begin() + std::ptrdiff_t(at),
                                            positions.begin() + std::ptrdiff_t(std::min(positions.size(), at + chunk)));
      const std::vector<crash_state> states = crash_states(*order_, some);
      for (std::size_t k = 0; k < states.size() && !stopped(); ++k) f(states[k], at + k);
    }
  }

  // Whether the current multi-loss pass may check any image at all.
  bool budget_left() const {
    const std::size_t own = pass_ == search_pass::pairs ? o_.strategy.pair_images : o_.strategy.multi_loss_images;
    return own > 0 && (o_.max_images == 0 || r_.images < o_.max_images);
  }

  // This crash point's share of what is left of `budget` (0: no limit).
  static std::size_t share_of(std::size_t budget, std::size_t used, std::size_t crash_points_left) {
    if (budget == 0) return ~std::size_t(0);
    const std::size_t left = budget > used ? budget - used : 0;
    return std::max<std::size_t>(1, (left + crash_points_left - 1) / crash_points_left);
  }

  // The images of this pass at `at`, within this crash point's share of the budget.
  void check_crash_point(const crash_state& at, std::size_t crash_points_left) {
    if (pass_ == search_pass::single) return submit(single_pass_images(at, crash_points_left), at);
    // The multi-loss passes share what the whole budget leaves, and their own.
    const std::size_t whole = o_.max_images == 0 ? ~std::size_t(0)
                              : o_.max_images > r_.images ? o_.max_images - r_.images : 0;
    if (whole == 0) return;
    const std::size_t own = pass_ == search_pass::pairs ? o_.strategy.pair_images : o_.strategy.multi_loss_images;
    const std::size_t share = std::min({whole, share_of(own, pass_used_, crash_points_left),
                                        own > pass_used_ ? own - pass_used_ : 0});
    if (share == 0) return;
    if (pass_ == search_pass::pairs) {
      pair_image_set pairs = pair_images(*order_, at, share);
      r_.coverage.pairs += pairs.pairs_covered;
      r_.coverage.pairs_total += pairs.pairs_total;
      pass_used_ += pairs.images.count;
      return submit(std::move(pairs.images), at);
    }
    image_set images =
        multi_loss_images(*order_, at, share, o_.strategy.seed ^ (at.position * 0x9e3779b97f4a7c15ull) ^ 0x5bd1e995u);
    r_.coverage.multi_loss_images += images.count;
    pass_used_ += images.count;
    submit(std::move(images), at);
  }

  image_set single_pass_images(const crash_state& at, std::size_t crash_points_left) {
    strategy_options s = o_.strategy;
    if (o_.max_images) {
      if (o_.max_images <= r_.images) {  // the budget is spent: this crash point goes unchecked
        r_.complete = r_.covers_all = false;
        return {};
      }
      const std::size_t share = share_of(o_.max_images, r_.images, crash_points_left);
      s.cap = std::min(s.cap, share);
      s.random_images = std::min(s.random_images, share);
    }
    image_set images = s.strategy == image_strategy::pmreorder
                                  ? pmreorder_images(t_, *order_, at.position, s.random_images, s.seed)
                                  : make_images(*order_, at, s);
    if (s.strategy == image_strategy::drop_one || s.strategy == image_strategy::mixed) {
      r_.coverage.single_drops += images.count;
      r_.coverage.single_drops_total += at.may.count();
    }
    if (images.images.empty()) images = minimal_image(*order_, at);  // no may-store: the one image there is
    r_.complete = r_.complete && images.complete;
    r_.covers_all = r_.covers_all && images.covers_all;
    return images;
  }

  void submit(image_set images, const crash_state& at) {
    for (const store_set& image : images.images) {
      if (stopped()) return;
      if (o_.max_images && r_.images >= o_.max_images) {
        r_.complete = r_.covers_all = false;
        return;
      }
      if (!seen_.insert(hash_set(image)).second) {
        ++r_.duplicate_images;
        continue;
      }
      // Every process making these images gives each the same tag; a
      // share checks only its own but counts them all.
      const std::uint64_t tag = next_tag_++;
      if (share_ && !share_(tag)) {
        ++r_.images;
        continue;
      }
      while (free_slots_.empty()) finish(*jobs_.next());
      const unsigned slot = free_slots_.back();
      free_slots_.pop_back();
      store_set kept = image;
      kept.subtract(at.must);
      ++checked_;
      const pending& p = pending_.emplace(tag, pending{image, at.position, slot, std::move(kept)}).first->second;
      jobs_.start(tag, fill_slot(*slots_[p.slot], p.image, p.position));
      ++r_.images;
    }
  }

  // An image written into a fresh directory (a kept failure, a run under
  // read tracking): a slot used once.
  fs::path write_image(const fs::path& dir, const store_set& image, std::uint64_t position) {
    image_slot fresh(dir);
    fresh.clear();  // whatever an earlier check left there
    return fill_slot(fresh, image, position);
  }

  // An image written into a slot kept between images: only the pages that
  // differ from what the slot holds are written (image_slot.hpp).
  fs::path fill_slot(image_slot& slot, const store_set& image, std::uint64_t position) {
    materialize_pools_into(t_, *order_, image, position, materialized_);
    wanted_.clear();
    for (const auto& [rel, bytes] : copy_bytes_) wanted_.push_back({rel, bytes});
    for (const pool_file& f : materialized_) wanted_.push_back({relative_to_root(f.path), f.bytes});
    return slot.hold(wanted_);
  }

  // A pool's path below the checked directory, as the traced program named it.
  const fs::path& relative_to_root(const std::string& path) {
    auto it = relative_.find(path);
    if (it != relative_.end()) return it->second;
    const fs::path rel = fs::absolute(path).lexically_normal().lexically_relative(root_);
    if (rel.empty() || *rel.begin() == "..")
      throw check_error(
          fmt::format("pool file '{}' lies outside the directory '{}' being checked", path, root_.string()));
    return relative_.emplace(path, rel).first->second;
  }

  void finish(const image_jobs::finished& f) {
    auto it = pending_.find(f.tag);
    pending p = std::move(it->second);
    pending_.erase(it);
    free_slots_.push_back(p.slot);
    if (o_.tick) o_.tick();
    if (f.verdict.ok) return;
    slots_[p.slot]->clear();  // see image_slot::clear
    ++r_.failed_images;
    record_failure(p, f.tag, f.verdict.detail);
  }

  // Images come back in the order their workers finish, which varies with
  // the jobs; ties are broken by the order images were made (the tag), so
  // that a cause's smallest image, and the causes' order, do not vary.
  void record_failure(const pending& p, std::uint64_t tag, const std::string& verdict) {
    const std::vector<missing_order> why = explain_image(t_, *order_, p.image, 4, p.position);
    const bool scoped = promoted_ && !promoted_->is_closed(p.image);
    std::string key, cause;
    if (!why.empty()) {
      key = cause_key(t_, why.front());
      cause = why.front().message;
    }
    const store_set issued = issued_at(p.position);
    store_set lost = issued;
    lost.subtract(p.image);
    const std::uint64_t trusted = why.empty() ? last_event_of(p.kept) : why.front().persisted_event;
    if (why.empty()) {
      const std::uint64_t first_lost = first_event_of(lost);
      key = fmt::format("unexplained|{}|{}", scoped, first_lost == trace::no_event ? "-" : site_key(first_lost));
      cause = unexplained_cause(scoped, trusted, first_lost);
    }
    auto [it, added] = by_cause_.try_emplace(key, r_.failures.size());
    if (added) {
      first_tag_.push_back(tag);
      smallest_tag_.push_back(tag);
      r_.failures.emplace_back();
      r_.failures.back().cause = cause;
      r_.failures.back().found_after_s = seconds_since(t0_);
      r_.failures.back().found_after_images = r_.images;
    }
    check_failure& f = r_.failures[it->second];
    ++f.images;
    first_tag_[it->second] = std::min(first_tag_[it->second], tag);
    const std::size_t lost_count = lost.count();
    if (!added && std::tie(lost_count, p.position, tag) >=
                      std::tie(f.lost_count, f.position, smallest_tag_[it->second]))
      return;
    smallest_tag_[it->second] = tag;
    f.scoped_persistency_bug = scoped || (!why.empty() && why.front().scoped_persistency_bug);
    f.position = p.position;
    f.crash_at = crash_site(t_, p.position);
    f.verdict = verdict;
    f.why.clear();
    for (const missing_order& m : why) f.why.push_back(m.message);
    f.cause = cause;
    f.lost_count = lost_count;
    f.kept_count = p.kept.count();
    f.kept = sites(p.kept);
    f.trusted = trusted == trace::no_event ? std::string() : event_site(t_, trusted);
    smallest_[it->second] = p.image;
    f.lost = sites(lost);
  }

  // No rule explains the image: say what was kept last and lost first.
  std::string unexplained_cause(bool scoped, std::uint64_t trusted, std::uint64_t first_lost) const {
    std::string c = scoped ? "allowed under " + r_.model + " but not with every scope promoted to device, so a prel "
                                 "or pacq scope is too narrow somewhere; no chain of releases and acquires from a "
                                 "lost store to a kept one was found"
                           : "no missing rule found: the image is allowed under " + r_.model +
                                 ", so the protocol itself fails here";
    if (first_lost != trace::no_event) c += "; the first store lost is " + store_phrase(t_, first_lost);
    if (trusted != trace::no_event)
      c += "; the last may-store kept is " + store_phrase(t_, trusted) +
           " (if recovery trusts it, it was made before the data it stands for was durable)";
    return c;
  }

  std::string site_key(std::uint64_t e) const {
    return fmt::format("{}:{}", t_.text_of(t_.events[e]), t_.events[e].line);
  }
  std::uint64_t first_event_of(const store_set& s) const {
    std::uint64_t out = trace::no_event;
    s.for_each([&](std::size_t id) { out = std::min(out, order_->node(id).event); });
    return out;
  }
  std::uint64_t last_event_of(const store_set& s) const {
    std::uint64_t out = trace::no_event;
    s.for_each([&](std::size_t id) { out = order_->node(id).event; });
    return out;
  }

  // The first few stores of a set, by file:line, one per event.
  std::vector<std::string> sites(const store_set& s) const {
    std::vector<std::string> out;
    std::uint64_t last = trace::no_event;
    s.for_each([&](std::size_t id) {
      const std::uint64_t e = order_->node(id).event;
      if (e != last && out.size() < 5) out.push_back(event_site(t_, e));
      last = e;
    });
    return out;
  }

  // Each failure no rule explains: its smallest image recovered again
  // under the traced target, which says what recovery read.
  void explain_unexplained_by_reads() {
    if (!o_.traced_target) return;
    for (const auto& [key, i] : by_cause_) {
      if (!key.starts_with("unexplained|")) continue;
      check_failure& f = r_.failures[i];
      image_jobs traced(o_.traced_target, 1, o_.timeout_s);
      const fs::path dir = o_.work_dir / fmt::format("reads-{}", i + 1);
      traced.start(0, write_image(dir, smallest_.at(i), f.position));
      const image_verdict v = traced.next()->verdict;
      if (!v.reads) {
        f.reads = "not known: recovery under read tracking gave no reads (" + v.detail + ")";
      } else if (v.ok) {
        f.reads = "not known: recovery passed when run again under read tracking";
      } else {
        const read_explanation e = explain_reads(t_, *order_, smallest_.at(i), f.position, *v.reads, dir, root_);
        f.reads = e.summary;
        f.read_lost = e.stale;
        f.cause += "; " + e.summary;
      }
      fs::remove_all(dir);
    }
  }

  // The smallest failing image of each cause, written where the user can
  // run recovery on it again (the images directory is scratch).
  void keep_failing_images() {
    if (o_.keep_failures.empty()) return;
    if (fs::exists(o_.keep_failures))  // an earlier check's
      for (const auto& entry : fs::directory_iterator(o_.keep_failures))
        if (entry.path().filename().string().starts_with("failure-")) fs::remove_all(entry.path());
    for (std::size_t i = 0; i < r_.failures.size(); ++i) {
      const fs::path dir = o_.keep_failures / fmt::format("failure-{}", i + 1);
      write_image(dir, smallest_.at(i), r_.failures[i].position);
      r_.failures[i].kept_at = dir.string();
    }
  }

  bool stopped() const { return o_.stop_at_first && r_.failed_images > 0; }

  store_set issued_at(std::uint64_t position) const {
    store_set s = order_->empty_set();
    s.insert_prefix(order_->issued_before(position));
    return s;
  }

  const trace::trace& t_;
  const check_options& o_;
  image_jobs jobs_;
  fs::path root_;
  std::chrono::steady_clock::time_point t0_;
  image_share share_;
  std::size_t checked_ = 0;  // images of this share started
  std::unique_ptr<persist_order> order_, promoted_;
  std::vector<std::pair<fs::path, std::vector<std::byte>>> copy_bytes_;  // the other files, by path below root_
  std::vector<std::unique_ptr<image_slot>> slots_;  // by slot number
  std::vector<unsigned> free_slots_;
  std::vector<pool_file> materialized_;  // the image being written: its buffers kept for the next
  std::vector<slot_file> wanted_;
  std::map<std::string, fs::path> relative_;  // pool path -> below root_
  std::map<std::uint64_t, pending> pending_;
  std::unordered_set<std::uint64_t> seen_;
  std::map<std::string, std::size_t> by_cause_;
  std::map<std::size_t, store_set> smallest_;  // by failure index
  std::vector<std::uint64_t> first_tag_;       // by failure index: its first image made
  std::vector<std::uint64_t> smallest_tag_;    // by failure index: its smallest image
  std::uint64_t next_tag_ = 0;
  search_pass pass_ = search_pass::single;
  std::size_t pass_used_ = 0;  // images the current multi-loss pass made
  check_report r_;
};

check_session::check_session(const trace::trace& t, const image_target& target, const check_options& options)
    : options_(options) {
  if (options_.work_dir.empty()) throw check_error("check: no scratch directory for the images was given");
  // The images are scratch: removed on an interrupt, and when the session
  // ends (also by an error) once its workers have been reaped.
  on_interrupt_ = std::make_unique<interrupt_cleanup::scratch_path>(options_.work_dir);
  try {
    impl_ = std::make_unique<checker>(t, target, options_);
  } catch (...) {
    std::error_code ec;  // the error being thrown is the one to report
    fs::remove_all(options_.work_dir, ec);
    throw;
  }
}

check_session::~check_session() {
  impl_.reset();  // reaps the image server and its workers first
  std::error_code ec;
  fs::remove_all(options_.work_dir, ec);
}

findings check_session::check_share(const image_share& share) { return impl_->check_share(share); }

check_report check_session::report(const std::vector<findings>& parts) { return impl_->report(parts); }

check_report check_trace(const trace::trace& t, const image_target& target, const check_options& options) {
  check_session session(t, target, options);
  return session.report({session.check_share({})});
}

}  // namespace gpmx::check
