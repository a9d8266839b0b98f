// The relaxed machine as a search over issue orders with memoised states. A
// thread's state is the values its issued loads returned; its pending window
// is re-derived from those by decoding its code (see decode()).
#include "gpmx/litmus/machine.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "gpmx/litmus/eval.hpp"

namespace gpmx::litmus {

namespace {

struct issue_slot {
  bool done = false;
  value rval = 0;
};

struct decoded_access {
  const instr* in = nullptr;
  int addr = 0;
  bool ready = false;  // operands known
  std::vector<value> operands;
  std::vector<tainted_value> regs_before;  // for the await condition
};

enum class window_end { done, halted, stopped };

struct window {
  std::vector<decoded_access> events;
  window_end end = window_end::stopped;
  std::vector<value> regs;
};

bool paired_or_unpaired(const instr& in) { return in.label == access_label::paired || in.label == access_label::unpaired; }
bool acquire(const instr& in) { return in.label == access_label::paired && in.kind != access_kind::store; }
bool release(const instr& in) { return in.label == access_label::paired && in.kind != access_kind::load; }

class machine {
 public:
  machine(const program& p, const machine_options& o) : p_(p), opt_(o) {}

  machine_result run() {
    std::vector<std::vector<issue_slot>> slots(p_.threads.size());
    std::vector<value> mem = p_.initial_memory();
    std::vector<std::shared_ptr<const window>> windows;
    for (int t = 0; t < static_cast<int>(p_.threads.size()); ++t)
      windows.push_back(std::make_shared<const window>(decode(t, slots[static_cast<std::size_t>(t)])));
    dfs(mem, slots, windows);
    res_.outcomes.assign(outcomes_.begin(), outcomes_.end());
    return res_;
  }

 private:
  const program& p_;
  const machine_options& opt_;
  machine_result res_;
  std::set<machine_outcome> outcomes_;
  struct key_hash {
    std::size_t operator()(const std::vector<value>& v) const {
      std::uint64_t h = 1469598103934665603ULL;
      for (value x : v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ULL;
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_set<std::vector<value>, key_hash> seen_;

  // Decodes thread t in program order as far as known values allow: it
  // stops at a branch or address that needs an unissued load, and after an
  // unissued await (what follows a spin loop is control dependent on it).
  window decode(int t, const std::vector<issue_slot>& slots) const {
    const auto& th = p_.threads[static_cast<std::size_t>(t)];
    window w;
    std::vector<tainted_value> regs(th.regs.size());
    std::size_t k = 0;
    int pc = 0;
    for (int guard = 0;; ++guard) {
      if (guard > 1'000'000) throw std::runtime_error("thread " + th.name + " loops without accessing memory");
      if (pc >= static_cast<int>(th.code.size())) {
        w.end = window_end::done;
        break;
      }
      const instr& in = th.code[static_cast<std::size_t>(pc)];
      if (in.op == instr_op::assign) {
        regs[static_cast<std::size_t>(in.dst)] = eval(in.e, regs);
        ++pc;
        continue;
      }
      if (in.op == instr_op::branch_false) {
        const tainted_value c = eval(in.e, regs);
        if (!c.known) break;
        pc = c.v != 0 ? pc + 1 : in.target;
        continue;
      }
      if (in.op == instr_op::jump) {
        pc = in.target;
        continue;
      }
      if (in.op == instr_op::halt_bound) {
        w.end = window_end::halted;
        break;
      }
      value idx = 0;
      if (in.index) {
        const tainted_value iv = eval(*in.index, regs);
        if (!iv.known) break;
        idx = iv.v;
      }
      decoded_access d;
      d.in = &in;
      d.addr = resolve_address(p_, in, idx, th.name);
      d.ready = true;
      for (const auto& e : in.operands) {
        const tainted_value v = eval(e, regs);
        d.ready = d.ready && v.known;
        d.operands.push_back(v.v);
      }
      if (in.await_cond) d.regs_before = regs;  // only awaits need them
      const bool issued = k < slots.size() && slots[k].done;
      if (in.dst >= 0) regs[static_cast<std::size_t>(in.dst)] = issued ? tainted_value{slots[k].rval, 0, true} : tainted_value{0, 0, false};
      w.events.push_back(std::move(d));
      ++k;
      ++pc;
      if (!issued && in.await_cond) break;
    }
    for (const auto& r : regs) w.regs.push_back(r.v);
    return w;
  }

  static bool kept(const decoded_access& earlier, const decoded_access& later) {
    const instr& a = *earlier.in;
    const instr& b = *later.in;
    return earlier.addr == later.addr || (paired_or_unpaired(a) && paired_or_unpaired(b)) || release(b) || acquire(a);
  }

  // Memory, then per thread a bitmask of issued accesses and the issued values.
  std::vector<value> key(const std::vector<value>& mem, const std::vector<std::vector<issue_slot>>& slots) const {
    std::vector<value> k(mem);
    for (const auto& ts : slots) {
      std::uint64_t mask = 0;
      for (std::size_t i = 0; i < ts.size() && i < 64; ++i)
        if (ts[i].done) mask |= std::uint64_t{1} << i;
      k.push_back(static_cast<value>(mask));
      for (const auto& sl : ts)
        if (sl.done) k.push_back(sl.rval);
    }
    return k;
  }

  // windows[t] is thread t's decoded window for slots[t]; only the thread
  // that issues an access needs decoding again.
  void dfs(std::vector<value>& mem, std::vector<std::vector<issue_slot>>& slots,
           std::vector<std::shared_ptr<const window>>& windows) {
    if (!seen_.insert(key(mem, slots)).second) return;
    if (++res_.states > opt_.max_states)
      throw std::runtime_error(fmt::format("relaxed machine: more than {} states; test too large", opt_.max_states));
    bool moved = false;
    bool finished = true;
    for (int t = 0; t < static_cast<int>(p_.threads.size()); ++t) {
      auto& ts = slots[static_cast<std::size_t>(t)];
      const window& w = *windows[static_cast<std::size_t>(t)];
      bool all_issued = w.end == window_end::done;
      for (std::size_t k = 0; k < w.events.size(); ++k) {
        const bool issued = k < ts.size() && ts[k].done;
        if (issued) continue;
        all_issued = false;
        const decoded_access& d = w.events[k];
        if (!d.ready) continue;
        bool blocked = false;
        for (std::size_t j = 0; j < k && !blocked; ++j)
          blocked = !(j < ts.size() && ts[j].done) && kept(w.events[j], d);
        if (blocked) continue;
        const instr& in = *d.in;
        const auto a = static_cast<std::size_t>(d.addr);
        const value old = mem[a];
        if (in.await_cond) {
          auto regs = d.regs_before;
          regs[static_cast<std::size_t>(in.dst)] = tainted_value{old, 0, true};
          if (eval(*in.await_cond, regs).v == 0) continue;
        }
        value nv = old;
        if (in.kind == access_kind::store) nv = d.operands[0];
        if (in.kind == access_kind::rmw) nv = rmw_result(in.rmw, old, d.operands);
        if (k >= 64) throw std::runtime_error("relaxed machine: a thread with more than 64 accesses is not supported");
        const auto saved_size = ts.size();
        if (ts.size() <= k) ts.resize(k + 1);
        ts[k] = issue_slot{true, in.kind == access_kind::store ? 0 : old};
        mem[a] = nv;
        moved = true;
        auto saved_window = windows[static_cast<std::size_t>(t)];
        windows[static_cast<std::size_t>(t)] = std::make_shared<const window>(decode(t, ts));
        dfs(mem, slots, windows);
        windows[static_cast<std::size_t>(t)] = std::move(saved_window);
        mem[a] = old;
        ts[k] = issue_slot{};
        ts.resize(saved_size);
      }
      finished = finished && all_issued;
    }
    if (moved) return;
    if (!finished) {
      ++res_.stuck;
      return;
    }
    std::vector<std::vector<value>> final_regs;
    for (const auto& w : windows) final_regs.push_back(w->regs);
    outcomes_.insert(machine_outcome{mem, final_regs});
  }
};

}  // namespace

machine_result run_machine(const program& p, const machine_options& opt) {
  machine m(p, opt);
  return m.run();
}

}  // namespace gpmx::litmus
