#pragma once
// Why an image loses data: pairs of a store that persisted and one that did
// not although a stronger model (or a wider scope) would have ordered them.
#include <cstddef>
#include <string>
#include <vector>

#include "gpmx/check/persist_order.hpp"

namespace gpmx::check {

struct missing_order {
  std::uint64_t persisted_event = 0;  // the store in the image (t)
  std::uint64_t lost_event = 0;       // the store left out (s)
  std::uint64_t release_event = trace::no_event;  // scoped bugs: the prel whose scope is too narrow
  bool scoped_persistency_bug = false;
  std::string message;  // names both stores by file:line and the missing rule
};

// Where event `i` was made, for people: "file:line (event #i)"; host stores
// and a kernel's unviewed stores say how they were found instead.
std::string event_site(const trace::trace& t, std::uint64_t i);

// At most `max_findings` explanations for `image` (a set of `order`):
//  - t in the image, s not, s before t in one thread: the fence that would
//    have ordered them is missing (an ofence under sbrp, a gpm_persist under
//    epoch);
//  - a pacq that read from a prel with no scope containing both threads,
//    with a store before the prel left out and one after the pacq kept: the
//    scope is too narrow, a scoped persistency bug.
//  - when neither applies: a store of a thread made durable before a later
//    store of the same thread was issued (before `position`, the crash), the
//    first kept and the second lost: recovery trusted a store persisted too
//    early.
std::vector<missing_order> explain_image(const trace::trace& t, const persist_order& order, const store_set& image,
                                         std::size_t max_findings = 16, std::uint64_t position = never);

}  // namespace gpmx::check
