// Combining ranks' counters into the job's, the run.json section, and what the user reads.
#include <gtest/gtest.h>

#include <cmath>

#include "counters/counters_text.hpp"
#include "counters/job_counters.hpp"
#include "counters/rank_report.hpp"

namespace wave3d::counters {
namespace {

RankReport rank(std::vector<EventCounts> events, int threads = 2) {
  RankReport r;
  r.regions.library = "PAPI 7.0.0.0";
  r.regions.threads = threads;
  r.regions.events = std::move(events);
  return r;
}

EventCounts counted(std::string name, std::vector<RegionCounts> per_thread, std::string modes = "user+kernel") {
  return {std::move(name), std::nullopt, std::move(per_thread), std::move(modes), "PAPI"};
}

EventCounts missing(std::string name, std::string why) { return {std::move(name), std::move(why), {}, {}, {}}; }

TEST(JobCounters, TotalsAreSumsOverThreadsAndRanks) {
  const std::vector<RankReport> ranks{
      rank({counted("perf::TASK-CLOCK", {{10, 2, 15}, {20, 3, 30}}), missing("PAPI_TOT_CYC", "no PMU")}),
      rank({counted("perf::TASK-CLOCK", {{11, 4, 17}, {12, 5, 19}}), missing("PAPI_TOT_CYC", "no PMU")})};
  const JobCounters job = combine_rank_reports(ranks, 4, 2.0);
  ASSERT_EQ(job.events.size(), 2u);
  const EventSummary& clock = job.events[0];
  ASSERT_FALSE(clock.problem);
  EXPECT_EQ(clock.total, (RegionCounts{53, 14, 81}));
  ASSERT_EQ(clock.per_rank_thread.size(), 2u);
  EXPECT_EQ(clock.per_rank_thread[1][0], (RegionCounts{11, 4, 17}));
  EXPECT_EQ(job.events[1].problem, "no PMU");  // the same on every rank: said once, without rank numbers

  const nlohmann::json json = counters_json(job, 12.5);
  EXPECT_EQ(json["enabled"], true);
  EXPECT_EQ(json["ranks"], 2);
  EXPECT_EQ(json["threads_per_rank"], nlohmann::json::array({2, 2}));
  const nlohmann::json& e = json["events"][0];
  EXPECT_EQ(e["status"], "available");
  EXPECT_EQ(e["modes"], "user+kernel");
  EXPECT_EQ(e["counted_by"], "PAPI");
  EXPECT_EQ(e["total"]["compute"], 53);
  EXPECT_EQ(e["total"]["step"], 81);
  EXPECT_DOUBLE_EQ(e["per_step"]["step"].get<double>(), 81.0 / 4);
  EXPECT_DOUBLE_EQ(e["per_second"]["halo"].get<double>(), 14.0 / 2.0);
  EXPECT_EQ(e["per_rank"][1]["total"]["compute"], 23);
  EXPECT_EQ(e["per_rank"][0]["per_thread"][1]["step"], 30);
  EXPECT_EQ(json["events"][1]["status"], "unavailable");
  EXPECT_EQ(json["events"][1]["reason"], "no PMU");
  EXPECT_FALSE(json["events"][1].contains("total"));
}

TEST(JobCounters, AnEventMissingOnSomeRanksIsUnavailableForTheJobWithTheRanks) {
  const std::vector<RankReport> ranks{rank({counted("perf::CYCLES", {{1, 1, 2}, {1, 1, 2}})}),
                                      rank({missing("perf::CYCLES", "no PMU")}),
                                      rank({missing("perf::CYCLES", "no PMU")})};
  const JobCounters job = combine_rank_reports(ranks, 1, 1.0);
  EXPECT_EQ(job.events[0].problem, "no PMU (ranks 1-2); counted on rank 0");
  EXPECT_EQ(job.events[0].total, (RegionCounts{0, 0, 0}));
  EXPECT_TRUE(job.events[0].per_rank_thread.empty());
}

TEST(JobCounters, ARankReportingFewerThreadsThanItsTeamIsNotSummed) {
  const JobCounters job = combine_rank_reports({rank({counted("e", {{1, 1, 2}})}, 2)}, 1, 1.0);
  ASSERT_TRUE(job.events[0].problem);
}

TEST(JobCounters, EventsCountedInUserModeOnlyAreNamed) {
  const JobCounters job =
      combine_rank_reports({rank({counted("perf::CONTEXT-SWITCHES", {{0, 0, 0}, {0, 0, 0}}, "user")})}, 1, 1.0);
  EXPECT_EQ(job.events[0].modes, "user");
  EXPECT_NE(format_counters_summary(job, 1.0).find("not counted in kernel mode (not permitted here): "
                                                   "perf::CONTEXT-SWITCHES (user)"),
            std::string::npos);
}

TEST(JobCounters, MergedProblemsAndRankLists) {
  EXPECT_EQ(rank_list({0}), "0");
  EXPECT_EQ(rank_list({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(rank_list({0, 2, 5, 6, 7}), "0,2,5-7");
  EXPECT_EQ(merge_rank_problems({std::nullopt, std::nullopt}), std::nullopt);
  EXPECT_EQ(merge_rank_problems({"x", "x"}), "x");
  EXPECT_EQ(merge_rank_problems({"x", "y", "x"}), "x (ranks 0,2); y (rank 1)");
}

TEST(JobCounters, NoticesSayOnceForTheJobWhatIsNotCounted) {
  const std::vector<RankReport> ranks{
      rank({missing("PAPI_TOT_CYC", "no PMU"), missing("PAPI_TOT_INS", "no PMU"), missing("bogus", "no such event"),
            counted("perf::TASK-CLOCK", {{1, 1, 3}, {1, 1, 3}})}),
      rank({missing("PAPI_TOT_CYC", "no PMU"), missing("PAPI_TOT_INS", "no PMU"), missing("bogus", "no such event"),
            counted("perf::TASK-CLOCK", {{1, 1, 3}, {1, 1, 3}})})};
  const std::vector<std::string> notices = unavailability_notices(combine_rank_reports(ranks, 0, 0));
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0], "counters: PAPI_TOT_CYC, PAPI_TOT_INS are not counted: no PMU; the run goes on without them");
  EXPECT_EQ(notices[1], "counters: bogus is not counted: no such event; the run goes on without it");
}

TEST(JobCounters, NothingCountedAnywhereIsOneNotice) {
  RankReport r = rank({missing("PAPI_TOT_CYC", "not built in")});
  r.regions.unavailable = "not built in";
  const JobCounters job = combine_rank_reports({r, r}, 3, 1.0);
  EXPECT_EQ(job.unavailable, "not built in");
  const std::vector<std::string> notices = unavailability_notices(job);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0], "counters: nothing is counted: not built in; the run goes on without counters");
  EXPECT_EQ(format_counters_summary(job, 1.0),
            "counters:    not counted: not built in\n"
            "             DRAM bandwidth counters: not measured (not built in); the model's estimate: 1.00 GB/s\n");
  EXPECT_EQ(counters_json(job, 1.0)["unavailable"], "not built in");
}

TEST(JobCounters, DisabledCountersSaySo) {
  const JobCounters job = disabled_counters();
  EXPECT_EQ(counters_json(job, 1.0), (nlohmann::json{{"enabled", false}}));
  EXPECT_EQ(format_counters_summary(job, 1.0), "counters:    off (counters.enabled = false)\n");
  EXPECT_TRUE(unavailability_notices(job).empty());
}

TEST(JobCounters, DramNotExposedIsSaidBesideTheModelNeverEstimated) {
  RankReport r0 = rank({counted("perf::TASK-CLOCK", {{1, 1, 3}, {1, 1, 3}})});
  r0.dram = DramCounts{"no uncore PMU", 0, {}};
  const JobCounters job = combine_rank_reports({r0, rank({counted("perf::TASK-CLOCK", {{1, 1, 3}, {1, 1, 3}})})}, 10, 2.0);
  EXPECT_EQ(job.dram.problem, "no uncore PMU");
  const std::string text = format_counters_summary(job, 12.345);
  EXPECT_NE(text.find("DRAM bandwidth counters: not measured (no uncore PMU); the model's estimate: "
                      "12.35 GB/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("perf::TASK-CLOCK"), std::string::npos) << text;
  const nlohmann::json dram = counters_json(job, 12.345)["dram"];
  EXPECT_EQ(dram["status"], "unavailable");
  EXPECT_FALSE(dram.contains("gbytes_per_second"));
  EXPECT_DOUBLE_EQ(dram["model_gbytes_per_second"].get<double>(), 12.345);
}

TEST(JobCounters, DramMeasuredOnEveryNodeIsSummed) {
  RankReport r0 = rank({}), r1 = rank({}), r2 = rank({});
  r0.dram = DramCounts{std::nullopt, 3e9, {"skx_unc_imc0::UNC_M_CAS_COUNT:RD (CPU 0)"}};
  r2.dram = DramCounts{std::nullopt, 1e9, {"skx_unc_imc0::UNC_M_CAS_COUNT:RD (CPU 0)"}};
  const JobCounters job = combine_rank_reports({r0, r1, r2}, 10, 2.0);
  ASSERT_FALSE(job.dram.problem);
  EXPECT_EQ(job.dram.nodes, 2);
  const nlohmann::json dram = counters_json(job, 1.0)["dram"];
  EXPECT_EQ(dram["status"], "available");
  EXPECT_DOUBLE_EQ(dram["gbytes_per_second"].get<double>(), 2.0);
  EXPECT_NE(format_counters_summary(job, 1.0).find("DRAM bandwidth: 2.00 GB/s measured"), std::string::npos);
}

TEST(JobCounters, DramFailingOnOneNodeIsNotHalfSummed) {
  RankReport r0 = rank({}), r1 = rank({});
  r0.dram = DramCounts{std::nullopt, 3e9, {"imc"}};
  r1.dram = DramCounts{"permission denied", 0, {}};
  EXPECT_EQ(combine_rank_reports({r0, r1}, 1, 1.0).dram.problem, "permission denied (rank 1); counted on rank 0");
}

TEST(JobCounters, RankReportTravelsAsJson) {
  RankReport r = rank({counted("perf::TASK-CLOCK", {{1, 2, 3}, {4, 5, 6}}), missing("PAPI_TOT_CYC", "no PMU")});
  r.dram = DramCounts{std::nullopt, 42.0, {"a", "b"}};
  const RankReport back = rank_report_from_json(nlohmann::json::parse(rank_report_to_json(r).dump()));
  EXPECT_EQ(back.regions.library, r.regions.library);
  EXPECT_EQ(back.regions.threads, 2);
  ASSERT_EQ(back.regions.events.size(), 2u);
  EXPECT_EQ(back.regions.events[0].per_thread, r.regions.events[0].per_thread);
  EXPECT_EQ(back.regions.events[1].problem, "no PMU");
  ASSERT_TRUE(back.dram);
  EXPECT_EQ(back.dram->bytes, 42.0);
  EXPECT_EQ(back.dram->events, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(rank_report_from_json(rank_report_to_json(rank({}))).dram);
}

}  // namespace
}  // namespace wave3d::counters
