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
  bool torn = false;                  // persisted_event == lost_event: the store tore between granules
  std::uint64_t handoff_event = trace::no_event;  // cross-thread: the lost store's thread's hand-off
  std::string message;  // names both stores by file:line and the missing rule
};

// Where event `i` was made, for people: "file:line (event #i)"; host stores
// and a kernel's unviewed stores say how they were found instead.
std::string event_site(const trace::trace& t, std::uint64_t i);
// A store for a sentence: "the store at file:line (event #i)", "the host
// store to pool+0x40, found at ...", "the store kernel 'K' made without a PM view".
std::string store_phrase(const trace::trace& t, std::uint64_t i);

// At most `max_findings` explanations for `image` (a set of `order`):
//  - t in the image, s not, s before t in one thread: the fence that would
//    have ordered them is missing (an ofence under sbrp, a gpm_persist under
//    epoch);
//  - a pacq that read from a prel with no scope containing both threads,
//    with a store before the prel left out and one after the pacq kept: the
//    scope is too narrow, a scoped persistency bug.
//  - a store over several granules of which the image kept some: it tore;
//  - a host store never persisted before a launch whose store was kept: a
//    host persist before the launch is missing;
//  - a store lost while another thread, after a hand-off from the storing
//    thread (a barrier, an atomic, a prel), made a store that was kept: a
//    gpm_persist or dfence in the storing thread before the hand-off is
//    missing;
//  - when none applies: a store of a thread made durable before a later
//    store of the same thread was issued (before `position`, the crash), the
//    first kept and the second lost: recovery trusted a store persisted too
//    early.
// A too-narrow scope is looked for along chains of releases and acquires: a
// pacq whose scope fails, read from a prel, followed by prel/pacq hops to a
// thread whose store after them was kept.
std::vector<missing_order> explain_image(const trace::trace& t, const persist_order& order, const store_set& image,
                                         std::size_t max_findings = 16, std::uint64_t position = never);

}  // namespace gpmx::check
