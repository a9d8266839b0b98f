// The one line that says what a check's search covered, for the table and
// for people: "complete" is only ever said of what was complete.
#include <fmt/format.h>

#include "gpmx/check/check_run.hpp"

namespace gpmx::check {

std::string describe_coverage(const check_report& r) {
  const bool singles = r.strategy == to_string(image_strategy::drop_one) || r.strategy == to_string(image_strategy::mixed);
  if (!singles)
    return r.covers_all ? "yes: every allowed image" : (r.complete ? "yes, for the strategy" : "no: a cap cut it short");
  const search_coverage& c = r.coverage;
  std::string out = c.single_drops == c.single_drops_total
                        ? fmt::format("single drops: complete ({} of {})", c.single_drops, c.single_drops_total)
                        : fmt::format("single drops: {} of {}", c.single_drops, c.single_drops_total);
  if (r.crash_points < r.crash_points_total)
    out += fmt::format(" at {} of {} crash points", r.crash_points, r.crash_points_total);
  if (r.strategy == to_string(image_strategy::mixed))
    out += fmt::format("; pairs: {} of {}; random multi-loss images: {}", c.pairs, c.pairs_total,
                       c.multi_loss_images);
  return out;
}

}  // namespace gpmx::check
