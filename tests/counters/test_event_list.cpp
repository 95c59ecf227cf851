// counters.events: the comma-separated list of event names.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "counters/event_list.hpp"

namespace wave3d::counters {
namespace {

std::string error_of(std::string_view text) {
  try {
    (void)parse_event_list(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(EventList, NamesInOrderTrimmed) {
  EXPECT_EQ(parse_event_list("PAPI_TOT_CYC, perf::TASK-CLOCK ,skx_unc_imc0::UNC_M_CAS_COUNT:RD:cpu=0"),
            (std::vector<std::string>{"PAPI_TOT_CYC", "perf::TASK-CLOCK", "skx_unc_imc0::UNC_M_CAS_COUNT:RD:cpu=0"}));
  EXPECT_TRUE(parse_event_list("").empty());
  EXPECT_TRUE(parse_event_list("  ").empty());
}

TEST(EventList, BadListsSayWhatIsWrong) {
  EXPECT_NE(error_of("a,,b").find("event 2 of the list is empty"), std::string::npos);
  EXPECT_NE(error_of("a,").find("empty"), std::string::npos);
  EXPECT_NE(error_of("a,b,a").find("a is listed twice"), std::string::npos);
  EXPECT_NE(error_of("PAPI TOT").find("no spaces"), std::string::npos);
  std::string many;
  for (std::size_t i = 0; i <= kMaxEvents; ++i) many += (i ? "," : "") + std::to_string(i);
  EXPECT_NE(error_of(many).find("at most 32"), std::string::npos);
}

}  // namespace
}  // namespace wave3d::counters
