// The advisor's JSON: curves survive a round trip through the advice document, hand-written curve files
// in both point spellings are read, and bad files are refused with the path of what is wrong.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "advise/advise_json.hpp"
#include "topology/machines.hpp"

namespace wave3d::advise {
namespace {

using nlohmann::json;

std::string error_of(const json& doc) {
  try {
    (void)curves_from_json(doc);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(AdviseJson, CurvesRoundTripThroughTheAdviceDocument) {
  DomainCurves measured;
  measured.triad = Curve{"GB/s", {{1, 12.5, 12.0, 13.0}, {2, 20.25, 19.5, 20.5}}};
  measured.stencil = Curve{"MPoints/s", {{1, 300.125, std::nullopt, std::nullopt}, {2, 590.0, 580.0, 600.0}}};
  const Topology topo = Topology::from_synthetic("pack:1 numa:1 core:2 pu:1");
  const NodeAdvice advice = advise_node(topo, {measured}, 0.05);
  const json doc = json::parse(advice_to_json(advice).dump());  // through text, as a file would go

  const CurvesDocument back = curves_from_json(doc);
  ASSERT_EQ(back.domains.size(), 1u);
  const DomainCurves& d = back.domains[0];
  EXPECT_EQ(d.numa, 0);
  ASSERT_TRUE(d.triad && d.stencil);
  EXPECT_EQ(d.triad->unit, "GB/s");
  EXPECT_EQ(d.stencil->unit, "MPoints/s");
  ASSERT_EQ(d.triad->points.size(), 2u);
  EXPECT_EQ(d.triad->points[1].threads, 2);
  EXPECT_EQ(d.triad->points[1].value, 20.25);
  EXPECT_EQ(d.triad->points[1].low, 19.5);
  EXPECT_EQ(d.triad->points[1].high, 20.5);
  EXPECT_EQ(d.stencil->points[0].value, 300.125);
  EXPECT_FALSE(d.stencil->points[0].low.has_value());

  // Advice from the re-read curves is the same advice.
  EXPECT_EQ(advice_to_json(advise_node(topo, back.domains, 0.05)), advice_to_json(advice));
}

TEST(AdviseJson, AdviceDocumentHoldsTheFindings) {
  const Topology topo = load_builtin_machine(opteron_8356.name);
  DomainCurves socket;
  socket.stencil = Curve{"MPoints/s", {{1, 50, {}, {}}, {2, 96, {}, {}}, {3, 98, {}, {}}, {4, 97, {}, {}}}};
  const json doc = advice_to_json(advise_node(topo, {socket}, 0.05));
  ASSERT_EQ(doc["domains"].size(), 4u);
  const json& d = doc["domains"][2];
  EXPECT_EQ(d["numa"], 2);
  EXPECT_EQ(d["cores"], json({8, 9, 10, 11}));
  EXPECT_EQ(d["saturation"]["stencil"]["threads"], 2);
  EXPECT_TRUE(d["saturation"]["triad"].is_null());
  EXPECT_EQ(d["compute_cores"], 2);
  EXPECT_EQ(d["surplus_cores"], 2);
  EXPECT_EQ(d["progress_core"], 10);
  EXPECT_EQ(d["daemon_cores"], json({11}));
  EXPECT_EQ(doc["node"]["reserve"], "per-socket:2");
  EXPECT_EQ(doc["node"]["compute_cores"], 8);
  EXPECT_EQ(doc["node"]["progress_thread"], true);
  EXPECT_EQ(doc["tolerance"], 0.05);
}

TEST(AdviseJson, HandWrittenCurvesInBothPointSpellings) {
  const json doc = json::parse(R"({
    "description": "synthetic",
    "domains": [{"curves": {"triad": {"unit": "GB/s", "points": [[1, 3.3], [2, 4.8]]},
                            "stencil": {"points": [{"threads": 1, "value": 50}, {"threads": 2, "value": 96}]}}}]})");
  const CurvesDocument c = curves_from_json(doc);
  EXPECT_EQ(c.description, "synthetic");
  ASSERT_EQ(c.domains.size(), 1u);
  EXPECT_FALSE(c.domains[0].numa.has_value());
  EXPECT_EQ(c.domains[0].triad->points[1].value, 4.8);
  EXPECT_EQ(c.domains[0].stencil->points[1].threads, 2);
  EXPECT_EQ(c.domains[0].stencil->unit, "");
}

TEST(AdviseJson, BadFilesNameWhatIsWrong) {
  EXPECT_NE(error_of(json::array()).find("expected an object"), std::string::npos);
  EXPECT_NE(error_of(json::parse(R"({"domains": []})")).find("domains: expected an array of at least one"),
            std::string::npos);
  EXPECT_NE(error_of(json::parse(R"({"domains": [{"curves": {}}]})")).find("domains[0].curves: expected a \"triad\""),
            std::string::npos);
  const std::string value = error_of(json::parse(
      R"({"domains": [{"curves": {"stencil": {"points": [[1, 2], {"threads": 2, "value": "fast"}]}}}]})"));
  EXPECT_NE(value.find("domains[0].curves.stencil.points[1].value: expected a number, found \"fast\""),
            std::string::npos)
      << value;
  const std::string threads =
      error_of(json::parse(R"({"domains": [{"curves": {"triad": {"points": [[1.5, 2]]}}}]})"));
  EXPECT_NE(threads.find("domains[0].curves.triad.points[0][0]: expected a whole number of threads"), std::string::npos)
      << threads;
  const std::string order =
      error_of(json::parse(R"({"domains": [{"curves": {"triad": {"points": [[2, 2], [1, 1]]}}}]})"));
  EXPECT_NE(order.find("strictly ascend"), std::string::npos) << order;
}

}  // namespace
}  // namespace wave3d::advise
