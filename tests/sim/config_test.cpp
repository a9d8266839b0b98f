#include "gpmx/sim/config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace gpmx::sim;

std::string value_of(const sim_config& c, const std::string& key) {
  for (const auto& [k, v] : describe(c))
    if (k == key) return v;
  ADD_FAILURE() << "describe() has no key " << key;
  return {};
}

// Runs f, expects config_error, returns its message.
template <class F>
std::string config_error_of(F f) {
  try {
    f();
  } catch (const config_error& e) {
    EXPECT_EQ(e.code(), gpmx::error_code::config);
    return e.what();
  }
  ADD_FAILURE() << "no config_error";
  return {};
}

TEST(SimConfig, EveryNamedConfigurationValidates) {
  ASSERT_EQ(config_names().size(), 3u);
  for (const auto& name : config_names()) {
    sim_config c = named_config(name);
    EXPECT_EQ(c.name, name);
    EXPECT_NO_THROW(validate(c)) << name;
  }
  EXPECT_EQ(named_config("sbrp-table1-near").pm.location, pm_location::near);
  EXPECT_EQ(named_config("sbrp-table1-lrr").sched.policy, sched_policy::lrr);
  EXPECT_EQ(named_config("sbrp-table1").pm.location, pm_location::far);
}

TEST(SimConfig, DefaultsAreTable1) {
  sim_config c;
  EXPECT_EQ(c.sm.count, 30u);
  EXPECT_EQ(c.l1.size, 64u * 1024);
  EXPECT_EQ(c.l1.ways, 512u);
  EXPECT_EQ(c.l2.size, 3u * 1024 * 1024);
  EXPECT_EQ(c.l2.partitions, 24u);
  EXPECT_EQ(c.gddr.bandwidth_gbs, 336.0);
  EXPECT_EQ(c.nvm.write_gbs, 42.0);
}

TEST(SimConfig, UnknownNameThrowsAndListsNames) {
  auto msg = config_error_of([] { named_config("table1"); });
  EXPECT_NE(msg.find("table1"), std::string::npos);
  EXPECT_NE(msg.find("sbrp-table1-near"), std::string::npos);
}

TEST(SimConfig, SetThenDescribeRoundTrips) {
  sim_config c;
  set_parameter(c, "l1.size", "32K");
  EXPECT_EQ(c.l1.size, 32u * 1024);
  EXPECT_EQ(value_of(c, "l1.size"), "32K");
  EXPECT_NO_THROW(validate(c)) << "512 ways of 256 lines: still fully associative";
  set_parameter(c, "gddr.bandwidth_gbs", "672.5");
  EXPECT_EQ(value_of(c, "gddr.bandwidth_gbs"), "672.5");
  set_parameter(c, "l1.write_policy", "through");
  EXPECT_EQ(value_of(c, "l1.write_policy"), "through");
  set_parameter(c, "pm.location", "near");
  EXPECT_EQ(value_of(c, "pm.location"), "near");
  set_parameter(c, "l1.allocate_on_store", "false");
  EXPECT_EQ(value_of(c, "l1.allocate_on_store"), "false");
  set_parameter(c, "l2.size", "6M");
  EXPECT_EQ(c.l2.size, 6u << 20);

  // Every value describe() prints reads back to the same configuration.
  sim_config d;
  for (const auto& [k, v] : describe(c)) set_parameter(d, k, v);
  EXPECT_EQ(describe(d), describe(c));
}

TEST(SimConfig, DescribeCoversEveryKeyWithUnits) {
  auto keys = parameter_keys();
  auto d = describe(sim_config{});
  ASSERT_EQ(keys.size(), d.size());
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(keys[i], d[i].first);
  EXPECT_EQ(parameter_unit("l1.latency"), "cycles");
  EXPECT_EQ(parameter_unit("gddr.bandwidth_gbs"), "GB/s");
  EXPECT_NE(format_config(sim_config{}).find("l2.latency"), std::string::npos);
}

TEST(SimConfig, UnknownKeyNamesItAndSuggestsNearKeys) {
  sim_config c;
  auto msg = config_error_of([&] { set_parameter(c, "l1.sise", "32K"); });
  EXPECT_NE(msg.find("l1.sise"), std::string::npos);
  EXPECT_NE(msg.find("l1.size"), std::string::npos);
  auto all = config_error_of([&] { set_parameter(c, "zzz", "1"); });
  EXPECT_NE(all.find("zzz"), std::string::npos);
  EXPECT_NE(all.find("nvm.write_gbs"), std::string::npos) << "with no near key, every key is listed";
}

TEST(SimConfig, BadValuesThrowNamingTheKey) {
  sim_config c;
  for (auto [key, value] : {std::pair{"l1.latency", "twenty"}, std::pair{"l1.latency", "-3"},
                            std::pair{"l1.size", "12Q"}, std::pair{"gddr.bandwidth_gbs", "-336"},
                            std::pair{"gddr.bandwidth_gbs", "fast"}, std::pair{"l1.write_policy", "sideways"},
                            std::pair{"pm.location", "moon"}, std::pair{"sched.policy", "random"},
                            std::pair{"l1.allocate_on_store", "maybe"}, std::pair{"l1.mshrs", ""},
                            std::pair{"l1.ways", "99999999999"}}) {
    auto msg = config_error_of([&] { set_parameter(c, key, value); });
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
    EXPECT_NE(msg.find(value), std::string::npos) << msg;
  }
}

TEST(SimConfig, ACommandLineSettingIsKeyEqualsValue) {
  sim_config c;
  apply_setting(c, "nvm.write_gbs=1.6");
  EXPECT_DOUBLE_EQ(c.nvm.write_gbs, 1.6);
  for (const char* bad : {"nvm.write_gbs", "=3", ""}) {
    auto msg = config_error_of([&] { apply_setting(c, bad); });
    EXPECT_NE(msg.find("KEY=VALUE"), std::string::npos) << msg;
  }
  EXPECT_NE(config_error_of([&] { apply_setting(c, "l1.sise=32K"); }).find("l1.sise"), std::string::npos);
}

TEST(SimConfig, ValidateRefusesWhatCannotBeSimulated) {
  auto refused = [](const char* key, const char* value) {
    sim_config c;
    set_parameter(c, key, value);
    auto msg = config_error_of([&] { validate(c); });
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
  };
  refused("l1.size", "1000");           // not a multiple of the line
  refused("l1.ways", "3");              // 512 lines do not divide into sets of 3
  refused("l1.line", "96");             // not a power of two
  refused("gddr.bandwidth_gbs", "0");   // a zero rate
  refused("nvm.write_gbs", "0");
  refused("gddr.channels", "5");        // 24 partitions do not split over 5 channels
  refused("sched.run_ahead", "257");    // a lane's record past max_run_ahead
  refused("l1.mshrs", "0");
  refused("l2.size", "1000000");        // not divisible into 24 partitions of whole sets
}

}  // namespace
