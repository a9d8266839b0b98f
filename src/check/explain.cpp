// Naming the ordering rule whose absence let an image lose a store.
#include "gpmx/check/explain.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "explain_rules.hpp"

namespace gpmx::check {

namespace rules {
std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// An agent's events keep its name's string in `warp`.
std::string agent_name(const trace::trace& t, const trace::event& e) {
  return e.warp < t.strings.size() ? t.strings[e.warp] : "?";
}

std::string thread_name(const trace::trace& t, const trace::event& e) {
  if (trace::is_host(e)) return "the host";
  if (trace::is_agent(e)) return fmt::format("agent '{}' beside launch {}", agent_name(t, e), e.launch);
  return fmt::format("block {} warp {} lane {}", e.block, e.warp, e.lane);
}
}  // namespace rules

namespace {
using trace::event_kind;
using rules::concat;

// "pool.file+0x40" for an address inside a traced pool.
std::string pool_offset(const trace::trace& t, std::uint64_t address) {
  for (const trace::pool_image& p : t.pools)
    if (address >= p.base && address < p.base + p.length)
      return fmt::format("{}+{:#x}", std::filesystem::path(p.path).filename().string(), address - p.base);
  return fmt::format("{:#x}", address);
}
}  // namespace

// Host stores and a kernel's unviewed stores have no line of their own: the
// recorder found them at a host persist (file:line), a launch (the kernel's
// name, and the launch's file:line where the trace has it) or a kernel's end.
std::string event_site(const trace::trace& t, std::uint64_t i) {
  const trace::event& e = t.events[i];
  std::string_view file = t.text_of(e);
  if (const auto slash = file.find_last_of('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  if (file.empty()) file = "?";
  const std::string index = concat({" (event #", std::to_string(i), ")"});
  if (e.kind == event_kind::pm_write && trace::is_host(e)) {
    const std::string store = concat({"a host store to ", pool_offset(t, e.address), ", found at "});
    if (e.line != 0) return concat({store, "the persist at ", file, ":", std::to_string(e.line), index});
    // Not at a persist: at a launch (the text is the kernel's name), an unmapping or the recording's end.
    if (file.starts_with("the ")) return concat({store, file, index});
    // The launch's own event follows the host stores found at it.
    std::uint64_t launch = i + 1;
    while (launch < t.events.size() && t.events[launch].kind != event_kind::kernel_begin) ++launch;
    const std::string site = launch < t.events.size() ? t.launch_site(t.events[launch]) : std::string();
    return concat({store, "the launch of '", file, "'", site.empty() ? "" : " at ", site, index});
  }
  if (e.kind == event_kind::pm_write && e.block == trace::unviewed_block)
    return concat({"a store kernel '", file, "' made without a PM view", index});
  if (e.kind == event_kind::pm_write && trace::is_agent(e)) {
    return concat({"a store by agent '", rules::agent_name(t, e), "' to ", pool_offset(t, e.address), ", found at its persist at ", file,
                   ":", std::to_string(e.line), index});
  }
  return concat({file, ":", std::to_string(e.line), index});
}

std::string store_phrase(const trace::trace& t, std::uint64_t i) {
  const std::string site = event_site(t, i);
  if (site.starts_with("a ")) return "the " + site.substr(2);
  return "the store at " + site;
}

namespace {

std::string fence_rule(const trace::event& kept, persist_model m) {
  if (trace::is_host(kept) || trace::is_agent(kept))
    return "a pool::persist covering the earlier store, before the later one, is missing";
  if (m == persist_model::epoch) return "a gpm_persist between them is missing (epoch orders a thread's stores only across a durability point)";
  return "an ofence between them is missing";
}

bool same_block(const trace::event& a, const trace::event& b) { return a.launch == b.launch && a.block == b.block; }

// A store kept while an earlier store of its thread was lost. For each lost
// store the LAST such kept store is named, and the pairs are listed latest
// kept store first: the kept stores after a lost one lie before the
// thread's next durability point, and the last of them is the one recovery
// most likely trusted (a commit after the data it covers); a kept store
// next to the lost one (a mirror copy beside its primary) is usually
// incidental.
void same_thread_pairs(const trace::trace& t, const persist_order& order, const store_set& image, std::size_t most,
                       std::vector<missing_order>& out) {
  std::vector<std::uint64_t> last_lost;  // per thread: the latest store left out so far
  std::vector<std::uint64_t> lost_in_order;
  std::map<std::uint64_t, std::uint64_t> last_kept_after;  // lost store -> the last kept store paired with it
  for (std::size_t id = 0; id < order.size(); ++id) {
    const granule_store& g = order.node(id);
    if (g.thread >= last_lost.size()) last_lost.resize(g.thread + 1, trace::no_event);
    if (!image.contains(id)) {
      last_lost[g.thread] = g.event;
      continue;
    }
    const std::uint64_t s = last_lost[g.thread];
    if (s == trace::no_event || s == g.event) continue;
    if (last_kept_after.insert_or_assign(s, g.event).second) lost_in_order.push_back(s);
  }
  // The pair with the latest kept store first: recovery trusts what was
  // written last (a mirrored record's commit, not one copy's second word).
  std::stable_sort(lost_in_order.begin(), lost_in_order.end(), [&](std::uint64_t a, std::uint64_t b) {
    return last_kept_after.at(a) > last_kept_after.at(b);
  });
  for (std::uint64_t s : lost_in_order) {
    if (out.size() >= most) break;
    const std::uint64_t kept = last_kept_after.at(s);
    missing_order m;
    m.persisted_event = kept;
    m.lost_event = s;
    m.message = concat({store_phrase(t, kept), " persisted while ", store_phrase(t, s),
                        " before it in the same thread did not: ", fence_rule(t.events[kept], order.model())});
    out.push_back(std::move(m));
  }
}

// A store of `thread` left out before event `before`, and one kept after `after`.
std::pair<std::uint64_t, std::uint64_t> lost_and_kept(const persist_order& order, const store_set& image,
                                                      std::uint32_t releaser, std::uint64_t before,
                                                      std::uint32_t acquirer, std::uint64_t after) {
  std::uint64_t lost = trace::no_event, kept = trace::no_event;
  for (std::size_t id = 0; id < order.size(); ++id) {
    const granule_store& g = order.node(id);
    if (g.thread == releaser && g.event < before && !image.contains(id)) lost = g.event;
    if (g.thread == acquirer && g.event > after && image.contains(id) && kept == trace::no_event) kept = g.event;
  }
  return {lost, kept};
}

// Where a release reaches beyond its acquirer: threads that acquired, by
// later prel/pacq hops, from a thread already reached after it was reached.
// For each: the pacq by which it was reached and the thread it read from.
struct relay_hop {
  std::uint64_t pacq = 0;
  std::uint32_t from = 0;
};
std::map<std::uint32_t, relay_hop> relayed_from(const trace::trace& t, const persist_order& order,
                                                std::uint32_t acquirer, std::uint64_t acquire) {
  std::map<std::uint32_t, relay_hop> reached{{acquirer, {acquire, acquirer}}};
  for (std::uint64_t j = acquire + 1; j < t.events.size(); ++j) {
    const trace::event& e = t.events[j];
    if (e.kind != event_kind::pacq || e.reads_from == trace::no_event || trace::is_host(e)) continue;
    const auto from = reached.find(order.thread_of_event(e.reads_from));
    if (from == reached.end() || e.reads_from < from->second.pacq) continue;
    reached.try_emplace(order.thread_of_event(j), relay_hop{j, from->first});
  }
  return reached;
}

// " and on through the prel at X and the pacq at Y, ..." from the acquirer to `thread`.
std::string relay_path(const trace::trace& t, const std::map<std::uint32_t, relay_hop>& reached,
                       std::uint32_t acquirer, std::uint32_t thread) {
  std::vector<std::string> hops;
  for (std::uint32_t th = thread; th != acquirer;) {
    const relay_hop& h = reached.at(th);
    hops.push_back(concat({"the prel at ", event_site(t, t.events[h.pacq].reads_from), " and the pacq at ",
                           event_site(t, h.pacq)}));
    th = h.from;
  }
  std::string out;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) out += concat({", then ", *it});
  return out;
}

void narrow_scopes(const trace::trace& t, const persist_order& order, const store_set& image, std::size_t most,
                   std::vector<missing_order>& out) {
  if (order.model() == persist_model::strict || order.model() == persist_model::sbrp_promoted) return;
  for (std::uint64_t i = 0; i < t.events.size() && out.size() < most; ++i) {
    const trace::event& acq = t.events[i];
    if (acq.kind != event_kind::pacq || acq.reads_from == trace::no_event) continue;
    const trace::event& rel = t.events[acq.reads_from];
    const bool narrow = (rel.scope_of == scope::block || acq.scope_of == scope::block) && !same_block(rel, acq);
    if (!narrow) continue;
    const std::uint32_t releaser = order.thread_of_event(acq.reads_from), acquirer = order.thread_of_event(i);
    auto [lost, kept] = lost_and_kept(order, image, releaser, acq.reads_from, acquirer, i);
    std::string chain;
    if (lost != trace::no_event && kept == trace::no_event) {  // the acquirer relayed it on: a chain
      const std::map<std::uint32_t, relay_hop> reached = relayed_from(t, order, acquirer, i);
      for (const auto& [thread, hop] : reached) {
        if (thread == acquirer) continue;
        const std::uint64_t k = lost_and_kept(order, image, releaser, acq.reads_from, thread, hop.pacq).second;
        if (k != trace::no_event && (kept == trace::no_event || k < kept)) {
          kept = k;
          chain = relay_path(t, reached, acquirer, thread);
        }
      }
    }
    if (lost == trace::no_event || kept == trace::no_event) continue;
    const bool prel_narrow = rel.scope_of == scope::block;
    const std::uint64_t at_fault = prel_narrow ? acq.reads_from : i;
    missing_order m;
    m.persisted_event = kept;
    m.lost_event = lost;
    m.release_event = acq.reads_from;
    m.scoped_persistency_bug = true;
    m.message = concat({store_phrase(t, kept), " persisted while ", store_phrase(t, lost),
                        ", released to it through the prel at ", event_site(t, acq.reads_from), " and the pacq at ",
                        event_site(t, i), chain, ", did not: the scope of the ", prel_narrow ? "prel at " : "pacq at ",
                        event_site(t, at_fault), " is too narrow (block) for threads in different blocks (",
                        rules::thread_name(t, rel), " and ", rules::thread_name(t, acq),
                        "): this is a scoped persistency bug; widen it to device"});
    out.push_back(std::move(m));
  }
}

// The fallback: a store of a thread was made durable before a later store
// of the same thread was even issued, and the image kept the first and lost
// the second. No fence is missing there: the program persisted in this
// order (on purpose or by mistake) and recovery trusted the first store.
void durable_too_early(const trace::trace& t, const persist_order& order, const store_set& image,
                       std::uint64_t position, std::size_t most, std::vector<missing_order>& out) {
  constexpr std::size_t none = ~std::size_t(0);
  std::vector<std::size_t> last_early;          // per thread: the latest kept store durable by now
  std::vector<std::vector<std::size_t>> waiting;  // per thread: kept stores not durable yet
  std::set<std::pair<std::uint64_t, std::uint64_t>> reported;
  for (std::size_t id = 0; id < order.size() && out.size() < most; ++id) {
    const granule_store& g = order.node(id);
    if (g.event >= position) break;  // not issued before the crash
    if (g.thread >= last_early.size()) {
      last_early.resize(g.thread + 1, none);
      waiting.resize(g.thread + 1);
    }
    std::erase_if(waiting[g.thread], [&](std::size_t k) {
      if (order.durable_at(k) >= g.event) return false;
      if (last_early[g.thread] == none || k > last_early[g.thread]) last_early[g.thread] = k;
      return true;
    });
    if (image.contains(id)) {
      waiting[g.thread].push_back(id);
      continue;
    }
    const std::size_t k = last_early[g.thread];
    if (k == none) continue;
    const std::uint64_t kept = order.node(k).event;
    if (!reported.insert({kept, g.event}).second) continue;
    missing_order m;
    m.persisted_event = kept;
    m.lost_event = g.event;
    m.message = concat({store_phrase(t, kept), " was made durable at ",
                        event_site(t, order.durable_at(k)), " before ", store_phrase(t, g.event),
                        " of the same thread was even made, and the crash lost the later one: if recovery trusts "
                        "the earlier store, the later one must be written and persisted first"});
    out.push_back(std::move(m));
  }
}

}  // namespace

std::vector<missing_order> explain_image(const trace::trace& t, const persist_order& order, const store_set& image,
                                         std::size_t max_findings, std::uint64_t position) {
  if (t.events.size() != order.event_count())
    throw check_error("explain: the trace has " + std::to_string(t.events.size()) +
                      " events but the persist order was built from " + std::to_string(order.event_count()));
  std::vector<missing_order> out;
  const std::uint64_t crash = std::min<std::uint64_t>(position, t.events.size());
  // The more specific diagnoses first; a later rule only when no earlier one applies.
  narrow_scopes(t, order, image, max_findings, out);
  same_thread_pairs(t, order, image, max_findings, out);
  if (out.empty()) rules::torn_stores(t, order, image, crash, max_findings, out);
  if (out.empty()) rules::unpersisted_host_stores(t, order, image, crash, max_findings, out);
  if (out.empty()) rules::cross_thread_handoffs(t, order, image, crash, max_findings, out);
  if (out.empty()) durable_too_early(t, order, image, position, max_findings, out);
  return out;
}

}  // namespace gpmx::check
