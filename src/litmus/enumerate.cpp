// Depth-first search over SC interleavings with sleep sets. Local steps
// (register arithmetic, branches) run eagerly after each access, so only
// memory accesses are scheduling points.
#include "gpmx/litmus/enumerate.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "gpmx/litmus/eval.hpp"

namespace gpmx::litmus {

namespace {

enum class thread_status : std::uint8_t { ready, done, halted };

struct thread_pos {
  int pc = 0;
  thread_status status = thread_status::ready;
  int addr = -1;         // address of the pending access
  bool may_write = false;
  int reg_base = 0;
  int events = 0;        // events issued so far (program-order index)
};

struct search_node {
  std::vector<value> mem;
  std::vector<tainted_value> regs;
  std::vector<thread_pos> th;
  std::uint64_t used = 0;
};

struct choice {
  value rval = 0;
  value wval = 0;
};

class enumerator {
 public:
  enumerator(const program& p, const enumerate_options& o, const std::function<void(const execution&)>& v)
      : p_(p), opt_(o), visit_(v) {
    summarise_futures();
  }

  enumerate_stats run() {
    search_node root;
    root.mem = p_.initial_memory();
    int base = 0;
    for (const auto& t : p_.threads) {
      thread_pos tp;
      tp.reg_base = base;
      base += static_cast<int>(t.regs.size());
      root.th.push_back(tp);
    }
    root.regs.assign(static_cast<std::size_t>(base), tainted_value{});
    for (std::size_t t = 0; t < root.th.size(); ++t) advance(root, static_cast<int>(t));
    if (p_.threads.size() > 64) throw std::runtime_error("at most 64 threads are supported");
    dfs(root, 0);
    return stats_;
  }

 private:
  const program& p_;
  const enumerate_options& opt_;
  const std::function<void(const execution&)>& visit_;
  enumerate_stats stats_;
  std::vector<event> events_;
  execution exec_;

  // Per thread and pc, the locations (bit = location index) the code from pc
  // on may read and may write: an access no other thread can ever conflict
  // with is a persistent set on its own (a "safe" step).
  std::vector<std::vector<std::uint64_t>> may_read_, may_write_;
  bool summaries_ = false;

  void summarise_futures() {
    if (p_.locs.size() > 64) return;
    summaries_ = true;
    for (const auto& th : p_.threads) {
      const std::size_t n = th.code.size();
      std::vector<std::uint64_t> rd(n + 1, 0), wr(n + 1, 0);
      for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t pc = n; pc-- > 0;) {
          const instr& in = th.code[pc];
          std::uint64_t r = 0, w = 0;
          auto add = [&](std::size_t next) {
            r |= rd[next];
            w |= wr[next];
          };
          switch (in.op) {
            case instr_op::halt_bound: break;
            case instr_op::jump: add(static_cast<std::size_t>(in.target)); break;
            case instr_op::branch_false:
              add(pc + 1);
              add(static_cast<std::size_t>(in.target));
              break;
            case instr_op::access: {
              const std::uint64_t bit = std::uint64_t{1} << in.loc;
              if (in.kind != access_kind::store) r |= bit;
              if (in.kind != access_kind::load) w |= bit;
              add(pc + 1);
              break;
            }
            case instr_op::assign: add(pc + 1); break;
          }
          if (r != rd[pc] || w != wr[pc]) {
            rd[pc] = r;
            wr[pc] = w;
            changed = true;
          }
        }
      }
      may_read_.push_back(std::move(rd));
      may_write_.push_back(std::move(wr));
    }
  }

  bool safe(const search_node& n, int t) const {
    if (!summaries_) return false;
    const auto& tp = n.th[static_cast<std::size_t>(t)];
    const instr& in = instr_at(t, tp.pc);
    const std::uint64_t bit = std::uint64_t{1} << in.loc;
    const bool writes = in.kind != access_kind::load;
    for (std::size_t u = 0; u < n.th.size(); ++u) {
      if (static_cast<int>(u) == t || n.th[u].status != thread_status::ready) continue;
      const auto pc = static_cast<std::size_t>(n.th[u].pc);
      const std::uint64_t others = may_write_[u][pc] | (writes ? may_read_[u][pc] : 0);
      if ((others & bit) != 0) return false;
    }
    return true;
  }

  const instr& instr_at(int t, int pc) const {
    return p_.threads[static_cast<std::size_t>(t)].code[static_cast<std::size_t>(pc)];
  }
  std::vector<tainted_value> thread_regs(const search_node& n, int t) const {
    const auto& tp = n.th[static_cast<std::size_t>(t)];
    auto first = n.regs.begin() + tp.reg_base;
    return {first, first + static_cast<std::ptrdiff_t>(p_.threads[static_cast<std::size_t>(t)].regs.size())};
  }
  void store_regs(search_node& n, int t, const std::vector<tainted_value>& regs) const {
    std::copy(regs.begin(), regs.end(), n.regs.begin() + n.th[static_cast<std::size_t>(t)].reg_base);
  }

  // Runs thread t's local instructions up to its next access (or its end).
  void advance(search_node& n, int t) {
    auto& tp = n.th[static_cast<std::size_t>(t)];
    const auto& code = p_.threads[static_cast<std::size_t>(t)].code;
    auto regs = thread_regs(n, t);
    for (int guard = 0;; ++guard) {
      if (guard > 1'000'000) throw std::runtime_error("thread " + p_.threads[static_cast<std::size_t>(t)].name + " loops without accessing memory");
      if (tp.pc >= static_cast<int>(code.size())) {
        tp.status = thread_status::done;
        break;
      }
      const instr& in = code[static_cast<std::size_t>(tp.pc)];
      if (in.op == instr_op::assign) {
        regs[static_cast<std::size_t>(in.dst)] = eval(in.e, regs);
        ++tp.pc;
      } else if (in.op == instr_op::branch_false) {
        const tainted_value c = eval(in.e, regs);
        n.used |= c.taint;  // control dependency
        tp.pc = c.v != 0 ? tp.pc + 1 : in.target;
      } else if (in.op == instr_op::jump) {
        tp.pc = in.target;
      } else if (in.op == instr_op::halt_bound) {
        tp.status = thread_status::halted;
        break;
      } else {
        value idx = 0;
        if (in.index) {
          const tainted_value iv = eval(*in.index, regs);
          n.used |= iv.taint;  // address dependency
          idx = iv.v;
        }
        tp.addr = resolve_address(p_, in, idx, p_.threads[static_cast<std::size_t>(t)].name);
        tp.may_write = in.kind != access_kind::load;
        break;
      }
    }
    store_regs(n, t, regs);
  }

  bool quantum(const instr& in) const { return opt_.quantum_equivalent && in.label == access_label::quantum; }

  // Bit 63 marks the awaited value itself; executions hold at most 63 events.
  static constexpr std::uint64_t self_bit = std::uint64_t{1} << 63;

  bool await_ok(const search_node& n, int t, const instr& in, value loaded, std::uint64_t* taint) const {
    if (!in.await_cond) return true;
    auto regs = thread_regs(n, t);
    regs[static_cast<std::size_t>(in.dst)] = tainted_value{loaded, self_bit, true};
    const tainted_value c = eval(*in.await_cond, regs);
    if (taint) *taint = c.taint;
    return c.v != 0;
  }

  std::vector<choice> choices(const search_node& n, int t) const {
    std::vector<choice> out;
    const auto& tp = n.th[static_cast<std::size_t>(t)];
    if (tp.status != thread_status::ready) return out;
    const instr& in = instr_at(t, tp.pc);
    const auto regs = thread_regs(n, t);
    std::vector<value> ops;
    for (const auto& e : in.operands) ops.push_back(eval(e, regs).v);
    const value cur = n.mem[static_cast<std::size_t>(tp.addr)];
    const bool q = quantum(in);
    switch (in.kind) {
      case access_kind::load:
        if (q) {
          for (value v : opt_.domain)
            if (await_ok(n, t, in, v, nullptr)) out.push_back({v, 0});
        } else if (await_ok(n, t, in, cur, nullptr)) {
          out.push_back({cur, 0});
        }
        break;
      case access_kind::store:
        if (q) {
          for (value v : opt_.domain) out.push_back({0, v});
        } else {
          out.push_back({0, ops[0]});
        }
        break;
      case access_kind::rmw:
        if (q && in.dst < 0) {
          // The arbitrary loaded value goes nowhere: one representative suffices.
          for (value w : opt_.domain) out.push_back({cur, w});
        } else if (q) {
          for (value r : opt_.domain)
            if (await_ok(n, t, in, r, nullptr))
              for (value w : opt_.domain) out.push_back({r, w});
        } else if (await_ok(n, t, in, cur, nullptr)) {
          out.push_back({cur, rmw_result(in.rmw, cur, ops)});
        }
        break;
    }
    return out;
  }

  void step(search_node& n, int t, const choice& c) {
    auto& tp = n.th[static_cast<std::size_t>(t)];
    const instr& in = instr_at(t, tp.pc);
    if (events_.size() >= 63) throw std::runtime_error("an execution has more than 63 accesses; not supported");
    const int id = static_cast<int>(events_.size());
    auto regs = thread_regs(n, t);
    event e;
    e.thread = t;
    e.po = tp.events++;
    e.kind = in.kind;
    e.rmw = in.rmw;
    e.label = in.label;
    e.scope = in.scope;
    e.cu = p_.threads[static_cast<std::size_t>(t)].cu;
    e.addr = tp.addr;
    e.pos = in.pos;
    e.before = n.mem[static_cast<std::size_t>(tp.addr)];
    for (const auto& ex : in.operands) {
      const tainted_value v = eval(ex, regs);
      n.used |= v.taint;  // data dependency
      e.operands.push_back(v.v);
    }
    e.reads = in.kind != access_kind::store;
    e.rval = c.rval;
    if (in.kind == access_kind::store) {
      e.writes = true;
    } else if (in.kind == access_kind::rmw) {
      e.writes = quantum(in) || rmw_writes(in.rmw, c.rval, e.operands);
    }
    e.wval = e.writes ? c.wval : 0;
    if (e.writes) n.mem[static_cast<std::size_t>(tp.addr)] = c.wval;
    if (in.await_cond) {
      std::uint64_t taint = 0;
      (void)await_ok(n, t, in, c.rval, &taint);
      n.used |= taint & ~self_bit;  // control dependency
      if ((taint & self_bit) != 0) n.used |= std::uint64_t{1} << id;  // the await branches on the loaded value
    }
    if (in.dst >= 0 && e.reads) regs[static_cast<std::size_t>(in.dst)] = tainted_value{c.rval, std::uint64_t{1} << id, true};
    store_regs(n, t, regs);
    events_.push_back(std::move(e));
    ++tp.pc;
    advance(n, t);
    ++stats_.steps;
  }

  static bool independent(const thread_pos& u, const event& e) {
    return u.addr != e.addr || (!u.may_write && e.kind == access_kind::load);
  }

  void terminal(const search_node& n) {
    ++stats_.executions;
    if (stats_.executions > opt_.max_executions)
      throw std::runtime_error(fmt::format("more than {} executions; test too large", opt_.max_executions));
    exec_.events = events_;
    for (std::size_t k = 0; k < exec_.events.size(); ++k)
      exec_.events[k].used = exec_.events[k].reads && ((n.used >> k) & 1U) != 0;
    exec_.complete = true;
    exec_.stop_reason.clear();
    exec_.final_mem = n.mem;
    exec_.regs.assign(p_.threads.size(), {});
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      const auto& tp = n.th[t];
      if (tp.status == thread_status::halted) {
        exec_.complete = false;
        exec_.stop_reason += fmt::format("{} reached a loop bound; ", p_.threads[t].name);
      } else if (tp.status == thread_status::ready) {
        exec_.complete = false;
        exec_.stop_reason += fmt::format("{} blocked at an await; ", p_.threads[t].name);
      }
      for (std::size_t r = 0; r < p_.threads[t].regs.size(); ++r)
        exec_.regs[t].push_back(n.regs[static_cast<std::size_t>(tp.reg_base) + r].v);
    }
    if (exec_.complete) ++stats_.complete;
    visit_(exec_);
  }

  void dfs(const search_node& n, std::uint64_t sleep) {
    const int nt = static_cast<int>(n.th.size());
    std::vector<std::vector<choice>> ch(static_cast<std::size_t>(nt));
    bool any = false;
    for (int t = 0; t < nt; ++t) {
      ch[static_cast<std::size_t>(t)] = choices(n, t);
      any = any || !ch[static_cast<std::size_t>(t)].empty();
    }
    if (!any) {
      terminal(n);
      return;
    }
    // A safe step commutes with everything the other threads can still do,
    // so it alone is explored (or, if it sleeps, nothing new remains here).
    int only = -1;
    for (int t = 0; t < nt && only < 0 && opt_.reduce; ++t)
      if (!ch[static_cast<std::size_t>(t)].empty() && safe(n, t)) only = t;
    if (only >= 0 && ((sleep >> only) & 1U) != 0) {
      ++stats_.sleep_blocked;
      return;
    }
    std::uint64_t done = sleep;
    bool explored = false;
    for (int t = 0; t < nt; ++t) {
      const std::uint64_t bit = std::uint64_t{1} << t;
      if (ch[static_cast<std::size_t>(t)].empty() || (sleep & bit) != 0) continue;
      if (only >= 0 && t != only) continue;
      explored = true;
      for (const choice& c : ch[static_cast<std::size_t>(t)]) {
        search_node child = n;
        step(child, t, c);
        const event& e = events_.back();
        std::uint64_t child_sleep = 0;
        for (int u = 0; u < nt; ++u) {
          const std::uint64_t ub = std::uint64_t{1} << u;
          if ((done & ub) != 0 && u != t && independent(n.th[static_cast<std::size_t>(u)], e)) child_sleep |= ub;
        }
        dfs(child, opt_.reduce ? child_sleep : 0);
        events_.pop_back();
      }
      done |= bit;
    }
    if (!explored) ++stats_.sleep_blocked;
  }
};

void collect_constants(const expr& e, std::set<value>& out) {
  if (e.kind == expr_kind::constant) out.insert(e.constant);
  for (const auto& k : e.kids) collect_constants(k, out);
}

}  // namespace

std::vector<value> program_constants(const program& p) {
  std::set<value> s{0, 1};
  for (const auto& l : p.locs) s.insert(l.init.begin(), l.init.end());
  for (const auto& t : p.threads)
    for (const auto& in : t.code) {
      if (in.op == instr_op::assign && in.dst >= 0 && t.regs[static_cast<std::size_t>(in.dst)].rfind("%loop", 0) == 0)
        continue;  // hidden loop counters are not program constants
      if (in.op == instr_op::branch_false && in.e.kind == expr_kind::binary && !in.e.kids.empty() &&
          in.e.kids[0].kind == expr_kind::reg && t.regs[static_cast<std::size_t>(in.e.kids[0].reg)].rfind("%loop", 0) == 0)
        continue;
      collect_constants(in.e, s);
      for (const auto& o : in.operands) collect_constants(o, s);
      if (in.index) collect_constants(*in.index, s);
      if (in.await_cond) collect_constants(*in.await_cond, s);
    }
  return {s.begin(), s.end()};
}

enumerate_stats enumerate_sc(const program& p, const enumerate_options& opt, const std::function<void(const execution&)>& visit) {
  if (opt.quantum_equivalent && opt.domain.empty()) throw std::invalid_argument("quantum domain is empty");
  enumerator en(p, opt, visit);
  return en.run();
}

}  // namespace gpmx::litmus
