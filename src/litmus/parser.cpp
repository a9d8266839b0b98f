// Recursive-descent parser; threads are compiled to flat code as they are read.
#include "gpmx/litmus/parser.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "lexer.hpp"

namespace gpmx::litmus {

parse_error::parse_error(const std::string& file, src_pos p, const std::string& msg)
    : error(error_code::litmus_parse, fmt::format("{}:{}:{}: {}", file, p.line, p.col, msg)), pos_(p) {}

namespace {

using detail::token;
using detail::token_kind;

const std::map<std::string, access_label>& label_names() {
  static const std::map<std::string, access_label> m{
      {"data", access_label::data},           {"paired", access_label::paired},
      {"unpaired", access_label::unpaired},   {"commutative", access_label::commutative},
      {"comm", access_label::commutative},    {"non-ordering", access_label::non_ordering},
      {"nonordering", access_label::non_ordering}, {"speculative", access_label::speculative},
      {"spec", access_label::speculative},    {"quantum", access_label::quantum}};
  return m;
}

const std::map<std::string, rmw_op>& rmw_names() {
  static const std::map<std::string, rmw_op> m{
      {"add", rmw_op::add}, {"sub", rmw_op::sub}, {"inc", rmw_op::inc}, {"dec", rmw_op::dec},
      {"and", rmw_op::bit_and}, {"or", rmw_op::bit_or},   {"min", rmw_op::min}, {"max", rmw_op::max},
      {"xchg", rmw_op::exchange}, {"exchange", rmw_op::exchange},
      {"cas", rmw_op::compare_exchange}, {"compare-exchange", rmw_op::compare_exchange}};
  return m;
}

int operand_count(rmw_op op) {
  switch (op) {
    case rmw_op::inc:
    case rmw_op::dec: return 0;
    case rmw_op::compare_exchange: return 2;
    default: return 1;
  }
}

const char* const model_keys[] = {"drf0", "drf1", "drfrlx", "hrf-direct", "hrf-indirect"};
const char* const race_class_names[] = {"data", "commutative", "non-ordering", "speculative", "quantum",
                                    "heterogeneous"};

class parser {
 public:
  parser(std::vector<token> toks, std::string file) : toks_(std::move(toks)), file_(std::move(file)) {}

  program run() {
    prog_.file = file_;
    while (!at_end()) item();
    if (prog_.threads.empty()) fail(peek().pos, "a litmus test needs at least one thread");
    return std::move(prog_);
  }

 private:
  std::vector<token> toks_;
  std::size_t i_ = 0;
  std::string file_;
  program prog_;
  thread* thr_ = nullptr;
  int hidden_ = 0;
  int depth_ = 0;  // nesting of blocks, parentheses, unary and binary operators around the parser's position

  // Deeper nesting than this is refused with the position where it passes
  // the limit: the parser, the evaluator and the tree's destructor all
  // recurse once per level, and a deep enough file would overflow the stack.
  static constexpr int max_depth = 256;
  class nesting {
   public:
    nesting(parser& p, const src_pos& at) : p_(p) {
      if (++p_.depth_ > max_depth) {
        --p_.depth_;
        p_.fail(at, fmt::format("nesting deeper than {} levels (blocks, parentheses and operators)", max_depth));
      }
    }
    ~nesting() { --p_.depth_; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;

   private:
    parser& p_;
  };

  [[noreturn]] void fail(src_pos p, const std::string& msg) const { throw parse_error(file_, p, msg); }
  const token& peek(std::size_t k = 0) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
  bool at_end() const { return peek().kind == token_kind::end; }
  bool is(const char* text) const {
    return (peek().kind == token_kind::punct || peek().kind == token_kind::ident) && peek().text == text;
  }
  bool accept(const char* text) {
    if (!is(text)) return false;
    ++i_;
    return true;
  }
  const token& expect(const char* text) {
    if (!is(text)) fail(peek().pos, fmt::format("expected '{}' but found '{}'", text, peek().text));
    return toks_[i_++];
  }
  const token& ident(const char* what) {
    if (peek().kind != token_kind::ident) fail(peek().pos, fmt::format("expected {} but found '{}'", what, peek().text));
    return toks_[i_++];
  }
  value number() {
    const bool neg = accept("-");
    if (peek().kind != token_kind::number) fail(peek().pos, fmt::format("expected a number but found '{}'", peek().text));
    const value v = toks_[i_++].number;
    return neg ? -v : v;
  }

  void item() {
    const token& t = peek();
    if (accept("litmus")) {
      if (peek().kind != token_kind::ident && peek().kind != token_kind::string) fail(peek().pos, "expected a test name");
      prog_.name = toks_[i_++].text;
      accept(";");
    } else if (accept("domain")) {
      do { prog_.domain.push_back(number()); } while (accept(","));
      expect(";");
    } else if (accept("init")) {
      init_block();
    } else if (accept("thread")) {
      thread_decl();
    } else if (is("exists") || is("forall")) {
      if (prog_.cond_kind != condition_kind::none) fail(t.pos, "only one final condition is allowed");
      prog_.cond_kind = t.text == "exists" ? condition_kind::exists : condition_kind::forall;
      ++i_;
      expect("(");
      prog_.cond = expression(true);
      expect(")");
      accept(";");
    } else if (accept("expect")) {
      expectation_line();
    } else {
      fail(t.pos, fmt::format("expected litmus, domain, init, thread, exists, forall or expect but found '{}'", t.text));
    }
  }

  void expectation_line() {
    expectation e;
    e.pos = peek().pos;
    e.key = ident("a model or 'sc', 'system', 'theorem'").text;
    expect("=");
    const auto& keys = model_keys;
    const bool model = std::find(std::begin(keys), std::end(keys), e.key) != std::end(keys);
    if (model) {
      std::vector<std::string> classes;
      do {
        const token& v = ident("a verdict");
        const bool ok = v.text == "legal" ||
                        std::find(std::begin(race_class_names), std::end(race_class_names), v.text) != std::end(race_class_names);
        if (!ok) fail(v.pos, fmt::format("unknown verdict '{}' (legal or a race class)", v.text));
        classes.push_back(v.text);
      } while (accept(","));
      std::sort(classes.begin(), classes.end());
      if (classes.size() > 1 && std::find(classes.begin(), classes.end(), "legal") != classes.end())
        fail(e.pos, "'legal' cannot be combined with race classes");
      for (std::size_t k = 0; k < classes.size(); ++k) e.expected += (k ? "," : "") + classes[k];
    } else if (e.key == "sc" || e.key == "system") {
      const token& v = ident("true or false");
      if (v.text != "true" && v.text != "false") fail(v.pos, "expected true or false");
      e.expected = v.text;
    } else if (e.key == "theorem") {
      const token& v = ident("holds or broken");
      if (v.text != "holds" && v.text != "broken") fail(v.pos, "expected holds or broken");
      e.expected = v.text;
    } else {
      fail(e.pos, fmt::format("unknown expectation key '{}'", e.key));
    }
    expect(";");
    prog_.expects.push_back(e);
  }

  void init_block() {
    expect("{");
    while (!accept("}")) {
      const token& name = ident("a location name");
      for (const auto& l : prog_.locs)
        if (l.name == name.text) fail(name.pos, fmt::format("location '{}' declared twice", name.text));
      location loc;
      loc.name = name.text;
      loc.base = prog_.mem_size;
      bool array = false;
      if (accept("[")) {
        const value n = number();
        if (n < 1 || n > 64) fail(name.pos, "array size must be between 1 and 64");
        loc.size = static_cast<int>(n);
        array = true;
        expect("]");
      }
      expect("=");
      if (accept("{")) {
        do { loc.init.push_back(number()); } while (accept(","));
        expect("}");
        if (static_cast<int>(loc.init.size()) != loc.size)
          fail(name.pos, fmt::format("location '{}' has {} initial values for {} elements", loc.name,
                                     loc.init.size(), loc.size));
      } else {
        loc.init.assign(static_cast<std::size_t>(loc.size), number());
      }
      (void)array;
      prog_.mem_size += loc.size;
      prog_.locs.push_back(std::move(loc));
      if (!accept(";") && !is("}")) fail(peek().pos, fmt::format("expected ';' but found '{}'", peek().text));
    }
  }

  void thread_decl() {
    thread t;
    const token& name = ident("a thread name");
    for (const auto& o : prog_.threads)
      if (o.name == name.text) fail(name.pos, fmt::format("thread '{}' declared twice", name.text));
    t.name = name.text;
    t.cu = static_cast<int>(prog_.threads.size());
    if (accept("cu")) t.cu = static_cast<int>(number());
    prog_.threads.push_back(std::move(t));
    thr_ = &prog_.threads.back();
    hidden_ = 0;
    block();
    thr_ = nullptr;
  }

  int reg_index(const std::string& name) {
    auto& regs = thr_->regs;
    auto it = std::find(regs.begin(), regs.end(), name);
    if (it != regs.end()) return static_cast<int>(it - regs.begin());
    regs.push_back(name);
    return static_cast<int>(regs.size() - 1);
  }

  int loc_index(const token& t) const {
    for (std::size_t k = 0; k < prog_.locs.size(); ++k)
      if (prog_.locs[k].name == t.text) return static_cast<int>(k);
    fail(t.pos, fmt::format("unknown location '{}' (declare it in init)", t.text));
  }

  int here() const { return static_cast<int>(thr_->code.size()); }
  instr& emit(instr in) {
    thr_->code.push_back(std::move(in));
    return thr_->code.back();
  }

  void block() {
    const nesting n(*this, peek().pos);
    expect("{");
    while (!accept("}")) {
      if (at_end()) fail(peek().pos, "unexpected end of file inside a block");
      stmt();
    }
  }

  static bool is_keyword(const std::string& s) {
    static const char* const kw[] = {"load", "store", "rmw", "if", "else", "repeat", "while", "bound", "await"};
    return std::find(std::begin(kw), std::end(kw), s) != std::end(kw);
  }

  void stmt() {
    const token& t = peek();
    if (t.kind != token_kind::ident) fail(t.pos, fmt::format("expected a statement but found '{}'", t.text));
    if (t.text == "if") return if_stmt();
    if (t.text == "repeat") return repeat_stmt();
    if (t.text == "while") return while_stmt();
    if (t.text == "store" || t.text == "rmw") {
      access(-1);
      return;
    }
    if (is_keyword(t.text)) fail(t.pos, fmt::format("'{}' cannot start a statement", t.text));
    ++i_;
    const int dst = reg_index(t.text);
    expect("=");
    if (is("load") || is("rmw")) {
      access(dst);
      return;
    }
    instr in;
    in.op = instr_op::assign;
    in.pos = t.pos;
    in.dst = dst;
    in.e = expression(false);
    expect(";");
    emit(std::move(in));
  }

  void access(int dst) {
    const token& kw = toks_[i_++];
    instr in;
    in.op = instr_op::access;
    in.pos = kw.pos;
    in.dst = dst;
    in.kind = kw.text == "load" ? access_kind::load : kw.text == "store" ? access_kind::store : access_kind::rmw;
    expect(".");
    if (in.kind == access_kind::rmw) {
      const token& op = ident("a read-modify-write operation");
      auto it = rmw_names().find(op.text);
      if (it == rmw_names().end())
        fail(op.pos, fmt::format("unknown read-modify-write '{}' (add sub inc dec and or min max xchg cas)", op.text));
      in.rmw = it->second;
      expect(".");
    }
    const token& lab = ident("a label");
    auto lit = label_names().find(lab.text);
    if (lit == label_names().end())
      fail(lab.pos, fmt::format("unknown label '{}' (data paired unpaired commutative non-ordering speculative quantum)", lab.text));
    in.label = lit->second;
    if (accept(".")) {
      const token& sc = ident("a scope");
      if (sc.text == "local") in.scope = gpmx::scope::block;
      else if (sc.text == "global") in.scope = gpmx::scope::device;
      else fail(sc.pos, fmt::format("unknown scope '{}' (local or global)", sc.text));
      if (in.label == access_label::data) fail(sc.pos, "data accesses carry no scope");
    }
    const token& lname = ident("a location");
    in.loc = loc_index(lname);
    if (accept("[")) {
      in.index = expression(false);
      expect("]");
    } else if (prog_.locs[static_cast<std::size_t>(in.loc)].size != 1) {
      fail(lname.pos, fmt::format("array '{}' needs an index", lname.text));
    }
    int want = in.kind == access_kind::store ? 1 : in.kind == access_kind::rmw ? operand_count(in.rmw) : 0;
    for (int k = 0; k < want; ++k) {
      expect(",");
      in.operands.push_back(expression(false));
    }
    if (accept("await")) {
      if (dst < 0) fail(kw.pos, "await needs a destination register (r = load ... await cond)");
      in.await_cond = expression(false);
    }
    expect(";");
    emit(std::move(in));
  }

  void if_stmt() {
    const nesting n(*this, peek().pos);  // an else-if chain recurses here
    const token& kw = toks_[i_++];
    expect("(");
    instr br;
    br.op = instr_op::branch_false;
    br.pos = kw.pos;
    br.e = expression(false);
    expect(")");
    const int br_at = here();
    emit(std::move(br));
    block();
    if (accept("else")) {
      instr j;
      j.op = instr_op::jump;
      j.pos = kw.pos;
      const int j_at = here();
      emit(std::move(j));
      thr_->code[static_cast<std::size_t>(br_at)].target = here();
      if (is("if")) if_stmt(); else block();
      thr_->code[static_cast<std::size_t>(j_at)].target = here();
    } else {
      thr_->code[static_cast<std::size_t>(br_at)].target = here();
    }
  }

  expr reg_expr(int reg, src_pos p) {
    expr e;
    e.kind = expr_kind::reg;
    e.reg = reg;
    e.pos = p;
    return e;
  }
  static expr const_expr(value v, src_pos p) {
    expr e;
    e.constant = v;
    e.pos = p;
    return e;
  }
  static expr binary(const char* op, expr a, expr b) {
    expr e;
    e.kind = expr_kind::binary;
    e.op = op;
    e.pos = a.pos;
    e.kids.push_back(std::move(a));
    e.kids.push_back(std::move(b));
    return e;
  }

  // Loops count in a hidden register so the interpreter needs no loop stack.
  int loop_counter(src_pos p) {
    const int c = reg_index(fmt::format("%loop{}", hidden_++));
    instr z;
    z.op = instr_op::assign;
    z.dst = c;
    z.e = const_expr(0, p);
    z.pos = p;
    emit(std::move(z));
    return c;
  }
  void loop_increment(int c, src_pos p) {
    instr inc;
    inc.op = instr_op::assign;
    inc.dst = c;
    inc.e = binary("+", reg_expr(c, p), const_expr(1, p));
    inc.pos = p;
    emit(std::move(inc));
  }

  // Emits a branch taken when e is false (target patched later); returns its index.
  int emit_branch_false(expr e, const src_pos& pos) {
    instr br;
    br.op = instr_op::branch_false;
    br.pos = pos;
    br.e = std::move(e);
    emit(std::move(br));
    return here() - 1;
  }

  void emit_jump(int target, const src_pos& pos) {
    instr j;
    j.op = instr_op::jump;
    j.target = target;
    j.pos = pos;
    emit(std::move(j));
  }

  void repeat_stmt() {
    const token& kw = toks_[i_++];
    const value n = number();
    if (n < 0 || n > 1000) fail(kw.pos, "repeat count must be between 0 and 1000");
    const int c = loop_counter(kw.pos);
    const int top = emit_branch_false(binary("<", reg_expr(c, kw.pos), const_expr(n, kw.pos)), kw.pos);
    block();
    loop_increment(c, kw.pos);
    emit_jump(top, kw.pos);
    thr_->code[static_cast<std::size_t>(top)].target = here();
  }

  void while_stmt() {
    const token& kw = toks_[i_++];
    expect("(");
    expr cond = expression(false);
    expect(")");
    expect("bound");
    const value n = number();
    if (n < 0 || n > 1000) fail(kw.pos, "loop bound must be between 0 and 1000");
    const int c = loop_counter(kw.pos);
    const int top = emit_branch_false(std::move(cond), kw.pos);
    const int guard = emit_branch_false(binary("<", reg_expr(c, kw.pos), const_expr(n, kw.pos)), kw.pos);
    block();
    loop_increment(c, kw.pos);
    emit_jump(top, kw.pos);
    // Bound exhausted while the condition still holds: the thread stops here.
    thr_->code[static_cast<std::size_t>(guard)].target = here();
    instr h;
    h.op = instr_op::halt_bound;
    h.pos = kw.pos;
    emit(std::move(h));
    thr_->code[static_cast<std::size_t>(top)].target = here();
  }

  // Expressions: in_cond selects final-condition names (T:reg, bare location).
  expr expression(bool in_cond) { return binary_from(0, in_cond); }

  // The binary operator at the parser's position and its precedence level
  // (0 binds loosest), or a null operator.
  std::pair<const char*, int> binary_operator() const {
    static const std::vector<std::vector<const char*>> levels{
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"},
        {"*", "/", "%"}};
    if (peek().kind != token_kind::punct) return {nullptr, -1};
    for (std::size_t level = 0; level < levels.size(); ++level)
      for (const char* op : levels[level])
        if (peek().text == op) return {op, static_cast<int>(level)};
    return {nullptr, -1};
  }

  // Precedence climbing: operators of level min_level or tighter, left
  // associative. One frame per nested operand rather than one per precedence
  // level keeps a parenthesis a few frames deep, so the nesting limit is
  // reached long before the stack's end (also under AddressSanitizer).
  expr binary_from(int min_level, bool in_cond) {
    expr lhs = unary(in_cond);
    std::vector<std::unique_ptr<nesting>> chain;  // each operator of a chain nests its left side one deeper
    for (;;) {
      const auto [op, level] = binary_operator();
      if (op == nullptr || level < min_level) return lhs;
      chain.push_back(std::make_unique<nesting>(*this, peek().pos));
      ++i_;
      expr rhs = binary_from(level + 1, in_cond);
      lhs = binary(op, std::move(lhs), std::move(rhs));
    }
  }

  expr unary(bool in_cond) {
    const token& t = peek();
    if (t.kind == token_kind::punct && (t.text == "!" || t.text == "-" || t.text == "~")) {
      const nesting n(*this, t.pos);
      ++i_;
      expr e;
      e.kind = expr_kind::unary;
      e.op = t.text;
      e.pos = t.pos;
      e.kids.push_back(unary(in_cond));
      return e;
    }
    return primary(in_cond);
  }

  expr primary(bool in_cond) {
    const token& t = peek();
    if (is("(")) {
      const nesting n(*this, t.pos);
      ++i_;
      expr e = expression(in_cond);
      expect(")");
      return e;
    }
    if (t.kind == token_kind::number) {
      ++i_;
      return const_expr(t.number, t.pos);
    }
    if (t.kind == token_kind::ident) {
      if (t.text == "true" || t.text == "false") {
        ++i_;
        return const_expr(t.text == "true" ? 1 : 0, t.pos);
      }
      if (is_keyword(t.text)) fail(t.pos, fmt::format("'{}' cannot appear in an expression", t.text));
      ++i_;
      if (!in_cond) return reg_expr(reg_index(t.text), t.pos);
      if (accept(":")) {
        const token& r = ident("a register");
        for (std::size_t k = 0; k < prog_.threads.size(); ++k) {
          const auto& th = prog_.threads[k];
          if (th.name != t.text) continue;
          auto it = std::find(th.regs.begin(), th.regs.end(), r.text);
          if (it == th.regs.end()) fail(r.pos, fmt::format("thread '{}' has no register '{}'", t.text, r.text));
          expr e = reg_expr(static_cast<int>(it - th.regs.begin()), r.pos);
          e.thread = static_cast<int>(k);
          return e;
        }
        fail(t.pos, fmt::format("unknown thread '{}' (the condition must follow the threads)", t.text));
      }
      expr e;
      e.kind = expr_kind::loc;
      e.loc = loc_index(t);
      e.pos = t.pos;
      if (accept("[")) {
        e.kids.push_back(expression(true));
        expect("]");
      } else if (prog_.locs[static_cast<std::size_t>(e.loc)].size != 1) {
        fail(t.pos, fmt::format("array '{}' needs an index", t.text));
      }
      return e;
    }
    fail(t.pos, fmt::format("expected an expression but found '{}'", t.text));
  }
};

}  // namespace

program parse_program(const std::string& text, const std::string& file) {
  parser p(detail::lex(text, file), file);
  program prog = p.run();
  if (prog.name.empty()) {
    const auto slash = file.find_last_of('/');
    std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    const auto dot = base.rfind(".litmus");
    if (dot != std::string::npos) base.resize(dot);
    prog.name = base;
  }
  return prog;
}

program parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw error(error_code::io, fmt::format("{}: cannot open file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_program(ss.str(), path);
}

}  // namespace gpmx::litmus
