// The arithmetic of the noise probes on synthetic samples whose answers are known by hand: FWQ baseline,
// noise fraction and detours; selfish-detour extraction and totals; percentiles; log2 histograms;
// the default threshold; the trace format; how ranks of a node share CPUs; the JSON round trip.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "probe/noise_analysis.hpp"
#include "probe/noise_cpus.hpp"
#include "probe/noise_json.hpp"
#include "probe/noise_report.hpp"
#include "probe/noise_trace.hpp"

namespace wave3d {
namespace {

TEST(Log2Histogram, BinsArePowersOfTwo) {
  EXPECT_EQ(log2_bin(1), 0);
  EXPECT_EQ(log2_bin(2), 1);
  EXPECT_EQ(log2_bin(3), 1);
  EXPECT_EQ(log2_bin(4), 2);
  EXPECT_EQ(log2_bin(1023), 9);
  EXPECT_EQ(log2_bin(1024), 10);
  EXPECT_EQ(log2_bin_floor(10), 1024);
  EXPECT_EQ(log2_bin_ceiling(10), 2048);
  EXPECT_THROW(log2_bin(0), std::invalid_argument);

  Log2Histogram h;
  for (std::int64_t ns : {0, 0, 1, 5, 6, 7, 1000, 1024, -3}) h.add(ns);
  EXPECT_EQ(h.zero, 3u);  // the negative one counts as zero
  EXPECT_EQ(h.bins[0], 1u);
  EXPECT_EQ(h.bins[2], 3u);
  EXPECT_EQ(h.bins[9], 1u);
  EXPECT_EQ(h.bins[10], 1u);
  EXPECT_EQ(h.total(), 9u);

  Log2Histogram twice = h;
  twice += h;
  EXPECT_EQ(twice.total(), 18u);
  EXPECT_EQ(twice.bins[2], 6u);
}

TEST(Percentile, NearestRank) {
  std::vector<std::int64_t> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);  // unsorted on purpose
  EXPECT_EQ(percentile_nearest_rank(hundred, 50.0), 50);
  EXPECT_EQ(percentile_nearest_rank(hundred, 99.0), 99);
  EXPECT_EQ(percentile_nearest_rank(hundred, 100.0), 100);
  EXPECT_EQ(percentile_nearest_rank(hundred, 0.5), 1);
  using Values = std::vector<std::int64_t>;
  EXPECT_EQ(percentile_nearest_rank(Values{7}, 99.0), 7);
  EXPECT_EQ(percentile_nearest_rank(Values{1, 2, 3, 4}, 50.0), 2);
  EXPECT_EQ(percentile_nearest_rank(Values{1, 2, 3, 4}, 51.0), 3);
  EXPECT_THROW(percentile_nearest_rank(Values{}, 50.0), std::invalid_argument);
  EXPECT_THROW(percentile_nearest_rank(Values{1}, 0.0), std::invalid_argument);
  EXPECT_THROW(percentile_nearest_rank(Values{1}, 101.0), std::invalid_argument);
  // The same definition for step times in seconds (run.json's p50 and p99).
  EXPECT_EQ(percentile_nearest_rank(std::vector<double>{0.4, 0.1, 0.3, 0.2}, 50.0), 0.2);
  EXPECT_EQ(percentile_nearest_rank(std::vector<double>{0.4, 0.1, 0.3, 0.2}, 99.0), 0.4);
}

TEST(Fwq, QuietSamplesHaveNoNoise) {
  const std::vector<std::int64_t> quanta(1000, 20000);
  const FwqSummary s = summarise_fwq(quanta);
  EXPECT_EQ(s.samples, 1000u);
  EXPECT_EQ(s.baseline_ns, 20000);
  EXPECT_DOUBLE_EQ(s.mean_ns, 20000.0);
  EXPECT_EQ(s.detour_ns, 0);
  EXPECT_DOUBLE_EQ(s.noise_fraction, 0.0);
  EXPECT_EQ(s.largest_detour_ns, 0);
  EXPECT_EQ(s.p99_detour_ns, 0);
  EXPECT_EQ(s.histogram.zero, 1000u);
}

TEST(Fwq, KnownDetours) {
  // 98 quanta of 10 us, one of 11 us (1 us detour) and one of 30 us (20 us detour):
  // sum t = 98*10 + 11 + 30 = 1021 us; sum of detours = 21 us; noise = 21 / 1021.
  std::vector<std::int64_t> quanta(98, 10000);
  quanta.insert(quanta.begin() + 40, 11000);
  quanta.push_back(30000);
  const FwqSummary s = summarise_fwq(quanta);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_EQ(s.baseline_ns, 10000);
  EXPECT_EQ(s.total_ns, 1021000);
  EXPECT_EQ(s.detour_ns, 21000);
  EXPECT_DOUBLE_EQ(s.noise_fraction, 21000.0 / 1021000.0);
  EXPECT_EQ(s.largest_detour_ns, 20000);
  EXPECT_DOUBLE_EQ(s.mean_ns, 10210.0);
  EXPECT_EQ(s.p50_detour_ns, 0);
  EXPECT_EQ(s.p99_detour_ns, 1000);  // rank 99 of 100: the 1 us detour; the 20 us one is the maximum
  EXPECT_EQ(s.histogram.zero, 98u);
  EXPECT_EQ(s.histogram.bins[static_cast<std::size_t>(log2_bin(1000))], 1u);
  EXPECT_EQ(s.histogram.bins[static_cast<std::size_t>(log2_bin(20000))], 1u);
}

TEST(Fwq, RejectsEmptyOrNonPositive) {
  EXPECT_THROW(summarise_fwq(std::vector<std::int64_t>{}), std::invalid_argument);
  EXPECT_THROW(summarise_fwq(std::vector<std::int64_t>{5, 0, 7}), std::invalid_argument);
}

TEST(Fwq, CalibrationScalesTheTrial) {
  EXPECT_EQ(fwq_iterations_for(20000, 1000, 2000), 10000u);  // 2 ns per iteration, 20 us quantum
  EXPECT_EQ(fwq_iterations_for(20000, 3, 7), 8571u);         // rounded
  EXPECT_EQ(fwq_iterations_for(1, 1, 1000), 1u);             // never zero
  EXPECT_THROW(fwq_iterations_for(0, 1, 1), std::invalid_argument);
  EXPECT_THROW(fwq_iterations_for(1, 0, 1), std::invalid_argument);
  EXPECT_THROW(fwq_iterations_for(1, 1, 0), std::invalid_argument);
}

TEST(Selfish, DefaultThreshold) {
  EXPECT_EQ(default_detour_threshold_ns(20), 250);  // the floor
  EXPECT_EQ(default_detour_threshold_ns(25), 250);
  EXPECT_EQ(default_detour_threshold_ns(40), 400);  // 10 x the fastest loop
  EXPECT_EQ(default_detour_threshold_rule(40), "max(10 x min loop gap 40 ns, 250 ns)");
}

// A loop that read the clock every 20 ns from t = 0, with gaps of 5 us at 1000 ns and 2 ms at 50 us
// and one of 250 ns (not above a 250 ns threshold) at 10 us.
std::vector<std::int64_t> synthetic_readings() {
  std::vector<std::int64_t> t{0};
  auto advance_to = [&](std::int64_t until) {
    while (t.back() + 20 <= until) t.push_back(t.back() + 20);
  };
  advance_to(1000);
  t.push_back(t.back() + 5000);
  advance_to(10000);
  t.push_back(t.back() + 250);
  advance_to(50000);
  t.push_back(t.back() + 2000000);
  advance_to(3000000);
  return t;
}

TEST(Selfish, DetoursAreGapsAboveTheThreshold) {
  const std::vector<std::int64_t> t = synthetic_readings();
  DetourRecorder rec(250, 16);
  std::uint64_t seen = 0;
  for (std::size_t i = 1; i < t.size(); ++i) seen += rec.observe(t[i - 1], t[i]) ? 1 : 0;
  EXPECT_EQ(seen, 2u);
  ASSERT_EQ(rec.detours().size(), 2u);
  EXPECT_EQ(rec.detours()[0], (Detour{1000, 5000}));
  // The 250 ns gap shifted the 20 ns grid by 10 ns: the last reading before 50 us is at 49990 ns.
  EXPECT_EQ(rec.detours()[1], (Detour{49990, 2000000}));
  EXPECT_EQ(rec.count(), 2u);
  EXPECT_EQ(rec.total_ns(), 2005000);
  EXPECT_EQ(rec.largest_ns(), 2000000);
  EXPECT_EQ(rec.dropped(), 0u);

  const std::int64_t elapsed = t.back() - t.front();
  const SelfishSummary s = summarise_selfish(rec, t.size(), elapsed, 20, default_detour_threshold_rule(20));
  EXPECT_EQ(s.reads, t.size());
  EXPECT_EQ(s.detours, 2u);
  EXPECT_EQ(s.detour_ns, 2005000);
  EXPECT_DOUBLE_EQ(s.noise_fraction, 2005000.0 / static_cast<double>(elapsed));
  EXPECT_EQ(s.largest_detour_ns, 2000000);
  EXPECT_EQ(s.p99_detour_ns, 2000000);  // of two detours, rank 2
  EXPECT_EQ(s.threshold_ns, 250);
  EXPECT_EQ(s.histogram.total(), 2u);
  EXPECT_EQ(s.histogram.bins[static_cast<std::size_t>(log2_bin(5000))], 1u);
  EXPECT_EQ(s.histogram.bins[static_cast<std::size_t>(log2_bin(2000000))], 1u);
}

TEST(Selfish, TotalsCoverDetoursBeyondTheCapacity) {
  DetourRecorder rec(100, 2);
  for (int i = 0; i < 5; ++i) rec.observe(i * 1000, i * 1000 + 200 + i);
  EXPECT_EQ(rec.count(), 5u);
  EXPECT_EQ(rec.detours().size(), 2u);
  EXPECT_EQ(rec.dropped(), 3u);
  EXPECT_EQ(rec.total_ns(), 200 + 201 + 202 + 203 + 204);
  EXPECT_EQ(rec.largest_ns(), 204);
  EXPECT_EQ(rec.histogram().total(), 5u);
  const SelfishSummary s = summarise_selfish(rec, 10, 5000, 20, "--threshold-ns");
  EXPECT_EQ(s.dropped, 3u);
  EXPECT_EQ(s.threshold_rule, "--threshold-ns");
}

TEST(Selfish, NoDetoursIsQuiet) {
  DetourRecorder rec(1000, 4);
  for (int i = 1; i < 100; ++i) rec.observe((i - 1) * 30, i * 30);
  const SelfishSummary s = summarise_selfish(rec, 100, 2970, 30, "rule");
  EXPECT_EQ(s.detours, 0u);
  EXPECT_DOUBLE_EQ(s.noise_fraction, 0.0);
  EXPECT_EQ(s.largest_detour_ns, 0);
  EXPECT_EQ(s.p99_detour_ns, 0);
  EXPECT_THROW(summarise_selfish(rec, 1, 0, 30, "rule"), std::invalid_argument);
}

TEST(Selfish, ThresholdIsSettledBeforeObserving) {
  DetourRecorder rec(1, 4);
  rec.set_threshold_ns(300);
  EXPECT_FALSE(rec.observe(0, 300));
  EXPECT_TRUE(rec.observe(0, 301));
  EXPECT_THROW(rec.set_threshold_ns(500), std::logic_error);
  EXPECT_THROW(DetourRecorder(0, 1), std::invalid_argument);
}

TEST(Trace, TwoTabSeparatedColumns) {
  const std::vector<Detour> d{{1000, 5000}, {50000, 2000000}};
  EXPECT_EQ(format_detour_trace(d), "1000\t5000\n50000\t2000000\n");
  EXPECT_EQ(format_detour_trace({}), "");
  EXPECT_EQ(detour_trace_name("node12", 3), "detours-node12-cpu3.tsv");
  EXPECT_EQ(detour_trace_name("a b/c", 0), "detours-a_b_c-cpu0.tsv");
}

TEST(ShareCpus, DisjointSetsStay) {
  const auto given = share_cpus_among_ranks({{0, 1}, {2, 3}});
  EXPECT_EQ(given, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(ShareCpus, IdenticalSetsAreDealtRoundRobin) {
  EXPECT_EQ(share_cpus_among_ranks({{0, 1}, {0, 1}}), (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(share_cpus_among_ranks({{0, 1, 2, 3}, {0, 1, 2, 3}}), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  // More ranks than CPUs: the last rank gets none.
  EXPECT_EQ(share_cpus_among_ranks({{0, 1}, {0, 1}, {0, 1}}), (std::vector<std::vector<int>>{{0}, {1}, {}}));
}

TEST(ShareCpus, OverlapGoesToTheRankWithFewer) {
  EXPECT_EQ(share_cpus_among_ranks({{0, 1, 2, 3}, {2, 3}}), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(share_cpus_among_ranks({{3, 1, 1}}), (std::vector<std::vector<int>>{{1, 3}}));  // sorted, no duplicates
  EXPECT_TRUE(share_cpus_among_ranks({}).empty());
}

TEST(Cpus, Outside) {
  EXPECT_EQ(cpus_outside({0, 5, 1, 9}, {0, 1, 2}), (std::vector<int>{5, 9}));
  EXPECT_TRUE(cpus_outside({1}, {0, 1}).empty());
}

TEST(Report, DurationsInThreeDigits) {
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(12345), "12.3 us");
  EXPECT_EQ(format_duration_ns(1500000), "1.50 ms");
  EXPECT_EQ(format_duration_ns(999700), "1.00 ms");
  EXPECT_EQ(format_duration_ns(2e9), "2.00 s");
  EXPECT_EQ(format_duration_ns(131072), "131 us");
  EXPECT_EQ(format_duration_ns(99960), "100 us");
  EXPECT_EQ(format_duration_ns(9999), "10.0 us");
}

TEST(Json, RankResultsRoundTrip) {
  std::vector<std::int64_t> quanta(50, 10000);
  quanta[7] = 13000;
  DetourRecorder rec(250, 8);
  rec.observe(100, 5100);
  RankNoise r;
  r.rank = 3;
  r.host = "node7";
  r.allowed_cpus = {0, 1};
  r.probed_cpus = {1};
  r.time_origin_monotonic_ns = 123456789;
  r.fwq_iterations = 4242;
  r.fwq_calibration_cpu = 1;
  CoreNoise c;
  c.cpu = 1;
  c.ran_on = 1;
  c.core = 1;
  c.fwq = summarise_fwq(quanta);
  c.selfish = summarise_selfish(rec, 1000, 100000, 20, "rule");
  c.trace_file = "t/detours-node7-cpu1.tsv";
  r.cores.push_back(c);
  r.machine = {{"hostname", "node7"}};

  const nlohmann::json j = r;
  EXPECT_TRUE(j.at("cores").at(0).at("numa_node").is_null());
  const RankNoise back = nlohmann::json::parse(j.dump()).get<RankNoise>();
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node7");
  EXPECT_EQ(back.probed_cpus, std::vector<int>{1});
  EXPECT_EQ(back.time_origin_monotonic_ns, 123456789);
  EXPECT_EQ(back.fwq_iterations, 4242u);
  ASSERT_EQ(back.cores.size(), 1u);
  const CoreNoise& b = back.cores[0];
  EXPECT_EQ(b.cpu, 1);
  EXPECT_EQ(b.ran_on, std::optional<int>(1));
  EXPECT_FALSE(b.numa_node.has_value());
  ASSERT_TRUE(b.fwq && b.selfish);
  EXPECT_EQ(b.fwq->largest_detour_ns, 3000);
  EXPECT_DOUBLE_EQ(b.fwq->noise_fraction, c.fwq->noise_fraction);
  EXPECT_EQ(b.fwq->histogram, c.fwq->histogram);
  EXPECT_EQ(b.selfish->detours, 1u);
  EXPECT_EQ(b.selfish->largest_detour_ns, 5000);
  EXPECT_EQ(b.selfish->histogram, c.selfish->histogram);
  EXPECT_EQ(b.trace_file, c.trace_file);
  EXPECT_EQ(back.machine, r.machine);
}

}  // namespace
}  // namespace wave3d
