#pragma once
// Checks a trace for crash-consistency (docs/check.md): for every crash
// point, the images a strategy picks among those the persistency model
// allows are materialized as pool files, and the program's recovery and
// consistency check run on each (image_jobs). Failures with the same cause
// are reported once, with the smallest image that shows it.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpmx/check/explain.hpp"
#include "gpmx/check/image_jobs.hpp"
#include "gpmx/check/images.hpp"
#include "gpmx/check/model.hpp"
#include "gpmx/support/interrupt_cleanup.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::check {

struct check_options {
  persist_model model = persist_model::sbrp;
  strategy_options strategy;  // strategy; cap (drop-one, exhaustive) or count (random) per crash point
  std::uint32_t granularity = 8;
  std::size_t max_granule_stores = std::size_t(1) << 16;  // refuse larger traces (memory is quadratic at worst)
  std::uint64_t every_n = 0;         // crash every N events instead of before each ordering operation
  std::vector<std::uint64_t> at;     // or exactly these crash positions (events [0, p) happened)
  std::size_t max_crash_points = 0;  // 0: all; else that many, evenly spread
  // Images in all (0: no limit). The crash points still to check share what
  // is left evenly, so a long trace gets fewer images per crash point
  // rather than losing its last crash points.
  std::size_t max_images = 0;
  bool stop_at_first = false;        // end at the first failing image (time to find a bug)
  unsigned jobs = 1;                 // images checked at once
  double timeout_s = 60;             // per image
  // Images one worker process checks in turn (image_jobs.hpp); a worker also
  // ends after any failed image. 1: a fresh process for every image.
  unsigned images_per_worker = 64;
  std::filesystem::path work_dir;    // scratch space for materialized images, removed at the end
  // When set: the smallest image of each cause is written to failure-K here
  // (an earlier check's failure-* directories are removed first).
  std::filesystem::path keep_failures;
  // Where the traced program's files lived: pool paths are taken relative to
  // it, and every other file in it is copied into each image's directory.
  std::filesystem::path root;
  // Optional: the same recovery run under a read_tracker, its verdict
  // carrying the reads. The smallest image of each failure no rule explains
  // is recovered once more with it, to say which stores recovery read and
  // which of those were lost (check_failure::reads).
  image_target traced_target = {};
  std::function<void(double fraction_done)> progress = {};
  // Called after every image's verdict, and after every crash point: a
  // heartbeat for callers that must show they are alive (docs/scale.md).
  std::function<void()> tick = {};
};

struct check_failure {
  std::string cause;                // one line: the missing rule, or the verdict when none is known
  bool scoped_persistency_bug = false;
  std::uint64_t position = 0;       // crash point of the smallest image
  std::string crash_at;             // "just before <event> at file:line (event #N)"
  std::string verdict;              // what recovery or the check said about it
  std::vector<std::string> why;     // explanations of the smallest image (file:line of both stores)
  std::vector<std::string> lost;    // stores the smallest image left out, first few
  std::vector<std::string> kept;    // may-stores the smallest image kept, first few
  std::string trusted;              // the store recovery is taken to have trusted: the kept one of the cause, or
                                    // (unexplained) the last may-store kept
  std::size_t lost_count = 0;
  std::size_t kept_count = 0;       // may-stores the smallest image kept
  std::size_t images = 0;           // failing images with this cause
  double found_after_s = 0;         // seconds from the start until the first image with this cause failed
  std::size_t found_after_images = 0;
  std::string kept_at;              // where the smallest image was written (check_options::keep_failures)
  // No rule explained it and check_options::traced_target was given: what
  // recovery read ("recovery read N granules ...; K had lost the latest
  // store (...)"), or why that is not known.
  std::string reads;
  std::vector<std::string> read_lost;  // the lost stores recovery read, first few, each with what it read instead
};

// What the search covered (strategies drop-one and mixed; docs/check.md).
struct search_coverage {
  std::uint64_t single_drops = 0;        // may-stores given a drop-one image, summed over crash points
  std::uint64_t single_drops_total = 0;  // may-stores, summed over the crash points checked
  std::uint64_t pairs = 0;               // pairs of may-stores covered (mixed), summed over crash points
  std::uint64_t pairs_total = 0;         // pairs of may-stores, summed over crash points (mixed)
  std::uint64_t multi_loss_images = 0;   // random images losing two or more stores (mixed)
};

struct check_report {
  std::string model, strategy;
  std::uint64_t events = 0;
  std::size_t granule_stores = 0;
  std::size_t crash_points = 0;       // checked
  std::size_t crash_points_total = 0; // before sampling
  std::size_t images = 0;             // distinct images checked
  std::size_t duplicate_images = 0;   // skipped: already checked at another crash point
  std::size_t failed_images = 0;
  bool complete = true;               // no cap cut a strategy short and every crash point was checked
  bool covers_all = true;             // every allowed image of every checked crash point was checked
  search_coverage coverage;
  std::vector<check_failure> failures;  // one per cause, in order found
  double seconds = 0;
};

// One line saying what the search covered: for mixed, "single drops:
// complete (N of N); pairs: K of P; random multi-loss images: M".
std::string describe_coverage(const check_report& r);

check_report check_trace(const trace::trace& t, const image_target& target, const check_options& options);

// Which images a process checks, by the index the checker gives each
// distinct image in the order it makes them (0, 1, ...). Processes making
// the images of one trace with the same options give them the same indices.
using image_share = std::function<bool(std::uint64_t image_index)>;

struct findings;
class checker;

// check_trace in steps, for checks split among processes (docs/scale.md):
// each makes every image and checks its share; one merges the findings of
// all shares into the report. check_trace is one share of every image.
class check_session {
 public:
  // Forks the image server, builds the persist order.
  check_session(const trace::trace& t, const image_target& target, const check_options& options);
  ~check_session();  // reaps the image server; removes options.work_dir
  check_session(const check_session&) = delete;
  check_session& operator=(const check_session&) = delete;

  // Makes every image and checks those `share` picks (empty: all). May be
  // called again with another share. With stop_at_first, stops at this
  // share's first failure.
  findings check_share(const image_share& share);
  // The report from the findings of shares that together checked every
  // image once: the same as check_trace's. Recovers unexplained failures
  // again under the traced target and keeps the smallest images, here.
  check_report report(const std::vector<findings>& parts);

 private:
  check_options options_;
  std::unique_ptr<interrupt_cleanup::scratch_path> on_interrupt_;
  std::unique_ptr<checker> impl_;
};

}  // namespace gpmx::check
