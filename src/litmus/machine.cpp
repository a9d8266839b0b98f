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

struct Slot {
  bool done = false;
  Value rval = 0;
};

struct Decoded {
  const Instr* in = nullptr;
  int addr = 0;
  bool ready = false;  // operands known
  std::vector<Value> operands;
  std::vector<TVal> regs_before;  // for the await condition
};

enum class End { Done, Halted, Stopped };

struct Window {
  std::vector<Decoded> events;
  End end = End::Stopped;
  std::vector<Value> regs;
};

bool paired_or_unpaired(const Instr& in) { return in.label == Label::Paired || in.label == Label::Unpaired; }
bool acquire(const Instr& in) { return in.label == Label::Paired && in.kind != AccessKind::Store; }
bool release(const Instr& in) { return in.label == Label::Paired && in.kind != AccessKind::Load; }

class Machine {
 public:
  Machine(const Program& p, const MachineOptions& o) : p_(p), opt_(o) {}

  MachineResult run() {
    std::vector<std::vector<Slot>> slots(p_.threads.size());
    std::vector<Value> mem = p_.initial_memory();
    std::vector<std::shared_ptr<const Window>> windows;
    for (int t = 0; t < static_cast<int>(p_.threads.size()); ++t)
      windows.push_back(std::make_shared<const Window>(decode(t, slots[static_cast<std::size_t>(t)])));
    dfs(mem, slots, windows);
    res_.outcomes.assign(outcomes_.begin(), outcomes_.end());
    return res_;
  }

 private:
  const Program& p_;
  const MachineOptions& opt_;
  MachineResult res_;
  std::set<MachineOutcome> outcomes_;
  struct KeyHash {
    std::size_t operator()(const std::vector<Value>& v) const {
      std::uint64_t h = 1469598103934665603ULL;
      for (Value x : v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ULL;
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_set<std::vector<Value>, KeyHash> seen_;

  // Decodes thread t in program order as far as known values allow: it
  // stops at a branch or address that needs an unissued load, and after an
  // unissued await (what follows a spin loop is control dependent on it).
  Window decode(int t, const std::vector<Slot>& slots) const {
    const auto& th = p_.threads[static_cast<std::size_t>(t)];
    Window w;
    std::vector<TVal> regs(th.regs.size());
    std::size_t k = 0;
    int pc = 0;
    for (int guard = 0;; ++guard) {
      if (guard > 1'000'000) throw std::runtime_error("thread " + th.name + " loops without accessing memory");
      if (pc >= static_cast<int>(th.code.size())) {
        w.end = End::Done;
        break;
      }
      const Instr& in = th.code[static_cast<std::size_t>(pc)];
      if (in.op == Instr::Op::Assign) {
        regs[static_cast<std::size_t>(in.dst)] = eval(in.e, regs);
        ++pc;
        continue;
      }
      if (in.op == Instr::Op::BranchFalse) {
        const TVal c = eval(in.e, regs);
        if (!c.known) break;
        pc = c.v != 0 ? pc + 1 : in.target;
        continue;
      }
      if (in.op == Instr::Op::Jump) {
        pc = in.target;
        continue;
      }
      if (in.op == Instr::Op::HaltBound) {
        w.end = End::Halted;
        break;
      }
      Value idx = 0;
      if (in.index) {
        const TVal iv = eval(*in.index, regs);
        if (!iv.known) break;
        idx = iv.v;
      }
      Decoded d;
      d.in = &in;
      d.addr = resolve_address(p_, in, idx, th.name);
      d.ready = true;
      for (const auto& e : in.operands) {
        const TVal v = eval(e, regs);
        d.ready = d.ready && v.known;
        d.operands.push_back(v.v);
      }
      if (in.await_cond) d.regs_before = regs;  // only awaits need them
      const bool issued = k < slots.size() && slots[k].done;
      if (in.dst >= 0) regs[static_cast<std::size_t>(in.dst)] = issued ? TVal{slots[k].rval, 0, true} : TVal{0, 0, false};
      w.events.push_back(std::move(d));
      ++k;
      ++pc;
      if (!issued && in.await_cond) break;
    }
    for (const auto& r : regs) w.regs.push_back(r.v);
    return w;
  }

  static bool kept(const Decoded& earlier, const Decoded& later) {
    const Instr& a = *earlier.in;
    const Instr& b = *later.in;
    return earlier.addr == later.addr || (paired_or_unpaired(a) && paired_or_unpaired(b)) || release(b) || acquire(a);
  }

  // Memory, then per thread a bitmask of issued accesses and the issued values.
  std::vector<Value> key(const std::vector<Value>& mem, const std::vector<std::vector<Slot>>& slots) const {
    std::vector<Value> k(mem);
    for (const auto& ts : slots) {
      std::uint64_t mask = 0;
      for (std::size_t i = 0; i < ts.size() && i < 64; ++i)
        if (ts[i].done) mask |= std::uint64_t{1} << i;
      k.push_back(static_cast<Value>(mask));
      for (const auto& sl : ts)
        if (sl.done) k.push_back(sl.rval);
    }
    return k;
  }

  // windows[t] is thread t's decoded window for slots[t]; only the thread
  // that issues an access needs decoding again.
  void dfs(std::vector<Value>& mem, std::vector<std::vector<Slot>>& slots,
           std::vector<std::shared_ptr<const Window>>& windows) {
    if (!seen_.insert(key(mem, slots)).second) return;
    if (++res_.states > opt_.max_states)
      throw std::runtime_error(fmt::format("relaxed machine: more than {} states; test too large", opt_.max_states));
    bool moved = false;
    bool finished = true;
    for (int t = 0; t < static_cast<int>(p_.threads.size()); ++t) {
      auto& ts = slots[static_cast<std::size_t>(t)];
      const Window& w = *windows[static_cast<std::size_t>(t)];
      bool all_issued = w.end == End::Done;
      for (std::size_t k = 0; k < w.events.size(); ++k) {
        const bool issued = k < ts.size() && ts[k].done;
        if (issued) continue;
        all_issued = false;
        const Decoded& d = w.events[k];
        if (!d.ready) continue;
        bool blocked = false;
        for (std::size_t j = 0; j < k && !blocked; ++j)
          blocked = !(j < ts.size() && ts[j].done) && kept(w.events[j], d);
        if (blocked) continue;
        const Instr& in = *d.in;
        const auto a = static_cast<std::size_t>(d.addr);
        const Value old = mem[a];
        if (in.await_cond) {
          auto regs = d.regs_before;
          regs[static_cast<std::size_t>(in.dst)] = TVal{old, 0, true};
          if (eval(*in.await_cond, regs).v == 0) continue;
        }
        Value nv = old;
        if (in.kind == AccessKind::Store) nv = d.operands[0];
        if (in.kind == AccessKind::Rmw) nv = rmw_result(in.rmw, old, d.operands);
        if (k >= 64) throw std::runtime_error("relaxed machine: a thread with more than 64 accesses is not supported");
        const auto saved_size = ts.size();
        if (ts.size() <= k) ts.resize(k + 1);
        ts[k] = Slot{true, in.kind == AccessKind::Store ? 0 : old};
        mem[a] = nv;
        moved = true;
        auto saved_window = windows[static_cast<std::size_t>(t)];
        windows[static_cast<std::size_t>(t)] = std::make_shared<const Window>(decode(t, ts));
        dfs(mem, slots, windows);
        windows[static_cast<std::size_t>(t)] = std::move(saved_window);
        mem[a] = old;
        ts[k] = Slot{};
        ts.resize(saved_size);
      }
      finished = finished && all_issued;
    }
    if (moved) return;
    if (!finished) {
      ++res_.stuck;
      return;
    }
    std::vector<std::vector<Value>> final_regs;
    for (const auto& w : windows) final_regs.push_back(w->regs);
    outcomes_.insert(MachineOutcome{mem, final_regs});
  }
};

}  // namespace

MachineResult run_machine(const Program& p, const MachineOptions& opt) {
  Machine m(p, opt);
  return m.run();
}

}  // namespace gpmx::litmus
