#include <gtest/gtest.h>

#include <string>

#include "gpmx/litmus/parser.hpp"
#include "gpmx/litmus/races.hpp"

namespace lt = gpmx::litmus;

namespace {

// Parses text that must fail and returns the error's position.
lt::src_pos error_at(const std::string& text, std::string* message = nullptr) {
  try {
    (void)lt::parse_program(text, "t.litmus");
  } catch (const lt::parse_error& e) {
    if (message) *message = e.what();
    return e.position();
  }
  ADD_FAILURE() << "no parse error for:\n" << text;
  return {};
}

const char* const good_text = R"(
litmus sample
domain 5, -2;
init { x = 0; a[3] = {1, 2, 3}; f = 4; }
thread P0 cu 2 {
  store.data x, 1;
  r = load.paired.local f await r == 4;
  q = rmw.cas.quantum a[r - 3], 2, 9;
  rmw.inc.commutative x;
  repeat 2 { t = t + 1; }
  while (t < 9) bound 3 { t = t * 2; }
  if (q == 2) { store.non-ordering x, q; } else { store.speculative x, 0; }
}
thread P1 { v = rmw.max.unpaired.global x, 7; }
exists (P0:q == 2 && a[1] == 9)
expect drf0 = legal;
expect drfrlx = quantum, data;
expect sc = true;
expect theorem = holds;
)";

}  // namespace

TEST(LitmusParser, ParsesThreadsAccessesAndExpectations) {
  const lt::program p = lt::parse_program(good_text, "t.litmus");
  EXPECT_EQ(p.name, "sample");
  ASSERT_EQ(p.threads.size(), 2U);
  EXPECT_EQ(p.threads[0].cu, 2);
  EXPECT_EQ(p.threads[1].cu, 1);  // default: its own compute unit
  ASSERT_EQ(p.locs.size(), 3U);
  EXPECT_EQ(p.mem_size, 5);
  EXPECT_EQ(p.initial_memory(), (std::vector<lt::value>{0, 1, 2, 3, 4}));
  EXPECT_EQ(p.addr_name(2), "a[1]");
  EXPECT_EQ(p.domain, (std::vector<lt::value>{5, -2}));

  std::vector<const lt::instr*> acc;
  for (const auto& in : p.threads[0].code)
    if (in.op == lt::instr_op::access) acc.push_back(&in);
  ASSERT_EQ(acc.size(), 6U);
  EXPECT_EQ(acc[0]->kind, lt::access_kind::store);
  EXPECT_EQ(acc[0]->label, lt::access_label::data);
  EXPECT_EQ(acc[1]->label, lt::access_label::paired);
  EXPECT_EQ(acc[1]->scope, gpmx::scope::block);
  EXPECT_TRUE(acc[1]->await_cond.has_value());
  EXPECT_EQ(acc[2]->rmw, lt::rmw_op::compare_exchange);
  EXPECT_EQ(acc[2]->operands.size(), 2U);
  EXPECT_TRUE(acc[2]->index.has_value());
  EXPECT_EQ(acc[3]->rmw, lt::rmw_op::inc);
  EXPECT_EQ(acc[3]->dst, -1);
  EXPECT_EQ(acc[4]->label, lt::access_label::non_ordering);
  EXPECT_EQ(acc[5]->label, lt::access_label::speculative);
  EXPECT_EQ(acc[0]->pos.line, 6);
  EXPECT_EQ(acc[0]->pos.col, 3);
  // The bounded while loop compiles to a halt for an exhausted bound.
  bool halt = false;
  for (const auto& in : p.threads[0].code) halt = halt || in.op == lt::instr_op::halt_bound;
  EXPECT_TRUE(halt);

  EXPECT_EQ(p.cond_kind, lt::condition_kind::exists);
  ASSERT_EQ(p.expects.size(), 4U);
  EXPECT_EQ(p.expects[1].key, "drfrlx");
  EXPECT_EQ(p.expects[1].expected, "data,quantum");  // sorted
  EXPECT_EQ(p.expects[3].expected, "holds");
}

TEST(LitmusParser, NameDefaultsToFileName) {
  const lt::program p = lt::parse_program("init { x = 0; } thread T { store.data x, 1; }", "dir/mp_x.litmus");
  EXPECT_EQ(p.name, "mp_x");
}

TEST(LitmusParser, ErrorsAreGpmxErrorsWithTheirCode) {
  try {
    (void)lt::parse_program("thread T { store.data x, 1; }", "t.litmus");
    ADD_FAILURE() << "no parse error";
  } catch (const gpmx::error& e) {
    EXPECT_EQ(e.code(), gpmx::error_code::litmus_parse) << e.what();
  }
  try {
    (void)lt::parse_model("drf2");
    ADD_FAILURE() << "no error for an unknown model";
  } catch (const gpmx::error& e) {
    EXPECT_EQ(e.code(), gpmx::error_code::config) << e.what();
  }
}

TEST(LitmusParser, ErrorsNameLineAndColumn) {
  std::string msg;
  lt::src_pos pos = error_at("init { x = 0; }\nthread T {\n  store.dat x, 1;\n}", &msg);
  EXPECT_EQ(pos.line, 3);
  EXPECT_EQ(pos.col, 9);
  EXPECT_NE(msg.find("t.litmus:3:9:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown label 'dat'"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { store.data y, 1; }", &msg);
  EXPECT_EQ(pos.line, 2);
  EXPECT_EQ(pos.col, 23);
  EXPECT_NE(msg.find("unknown location 'y'"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { r = load.data x }", &msg);
  EXPECT_EQ(pos.line, 2);
  EXPECT_EQ(pos.col, 28);
  EXPECT_NE(msg.find("expected ';'"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\n\n  thread T { r = 1 @ 2; }", &msg);
  EXPECT_EQ(pos.line, 3);
  EXPECT_EQ(pos.col, 20);
  EXPECT_NE(msg.find("unexpected character '@'"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { load.paired x await 1; }", &msg);
  EXPECT_EQ(pos.line, 2);

  pos = error_at("init { x = 0; }\nthread T { store.data.local x, 1; }", &msg);
  EXPECT_NE(msg.find("data accesses carry no scope"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { store.data x, 1; }\nexpect drf1 = racy;", &msg);
  EXPECT_EQ(pos.line, 3);
  EXPECT_EQ(pos.col, 15);

  pos = error_at("init { a[2] = 0; }\nthread T { store.data a, 1; }", &msg);
  EXPECT_NE(msg.find("needs an index"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { r = rmw.mul.paired x, 2; }", &msg);
  EXPECT_NE(msg.find("unknown read-modify-write 'mul'"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }", &msg);
  EXPECT_NE(msg.find("at least one thread"), std::string::npos) << msg;

  pos = error_at("init { x = 0; }\nthread T { store.data x, 1; }\nexists (T:nope == 1)", &msg);
  EXPECT_NE(msg.find("has no register 'nope'"), std::string::npos) << msg;
}

// Nesting deep enough to overflow the stack is refused with the position
// where it passes the limit.
namespace {
void expect_too_deep(const std::string& text) {
  try {
    (void)gpmx::litmus::parse_program(text, "deep.litmus");
    ADD_FAILURE() << "parsed";
  } catch (const gpmx::litmus::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("deep.litmus:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nesting deeper than"), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(ParserNesting, ThousandParenthesesAreRefused) {
  expect_too_deep("thread t0 { r0 = " + std::string(1000, '(') + "1" + std::string(1000, ')') + "; }");
}

TEST(ParserNesting, LongUnaryMinusChainIsRefused) {
  std::string minus;
  for (int i = 0; i < 100000; ++i) minus += "- ";
  expect_too_deep("thread t0 { r0 = " + minus + "1; }");
}

TEST(ParserNesting, NestedIfIsRefused) {
  std::string body;
  for (int i = 0; i < 1000; ++i) body += "if (1) { ";
  body += std::string(1000, '}');
  expect_too_deep("thread t0 { " + body + " }");
}

TEST(ParserNesting, LongOperatorChainIsRefused) {
  std::string e = "1";
  for (int i = 0; i < 100000; ++i) e += " + 1";
  expect_too_deep("thread t0 { r0 = " + e + "; }");
}

TEST(ParserNesting, ModestNestingStillParses) {
  EXPECT_NO_THROW((void)gpmx::litmus::parse_program(
      "thread t0 { r0 = " + std::string(50, '(') + "1" + std::string(50, ')') + "; }", "ok.litmus"));
}
