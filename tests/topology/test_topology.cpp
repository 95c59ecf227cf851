// Topology snapshots: the four built-in machines have the shape DESIGN.md describes, bad inputs give
// errors that name them, and an XML export loads back as the same topology.
#include <gtest/gtest.h>
#include <hwloc.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <unistd.h>

#include <fmt/format.h>

#include "topology_test_support.hpp"

namespace wave3d {
namespace {

using testing::machine;

struct Expected {
  std::string_view name;
  int packages, numa, l3, cores, pus;
};

class BuiltinMachineShape : public ::testing::TestWithParam<Expected> {};

TEST_P(BuiltinMachineShape, HasTheRightCounts) {
  const Expected& e = GetParam();
  const Topology& t = machine(e.name);
  EXPECT_EQ(static_cast<int>(t.packages.size()), e.packages);
  EXPECT_EQ(static_cast<int>(t.numa_nodes.size()), e.numa);
  EXPECT_EQ(static_cast<int>(t.l3_domains.size()), e.l3);
  EXPECT_EQ(static_cast<int>(t.cores.size()), e.cores);
  EXPECT_EQ(t.pu_count(), e.pus);
  EXPECT_EQ(static_cast<int>(t.allowed_pus.size()), e.pus);
  EXPECT_EQ(t.machine_pus, e.pus);
  EXPECT_FALSE(t.is_this_system);
  EXPECT_NE(t.source.find(e.name), std::string::npos) << t.source;

  // Every core is indexed in order and its package, NUMA node and L3 domain list it back.
  for (const Core& c : t.cores) {
    SCOPED_TRACE(fmt::format("core {}", c.index));
    EXPECT_EQ(c.index, &c - t.cores.data());
    ASSERT_GE(c.package, 0);
    ASSERT_GE(c.numa, 0);
    ASSERT_GE(c.l3, 0);
    const auto lists = [&](const std::vector<int>& v) { return std::count(v.begin(), v.end(), c.index) == 1; };
    EXPECT_TRUE(lists(t.packages[static_cast<std::size_t>(c.package)].cores));
    EXPECT_TRUE(lists(t.numa_nodes[static_cast<std::size_t>(c.numa)].cores));
    EXPECT_TRUE(lists(t.l3_domains[static_cast<std::size_t>(c.l3)].cores));
    EXPECT_EQ(t.numa_nodes[static_cast<std::size_t>(c.numa)].package, c.package);
  }
  for (const Package& p : t.packages) EXPECT_EQ(static_cast<int>(p.cores.size()), e.cores / e.packages);
  for (const NumaNode& n : t.numa_nodes) EXPECT_EQ(static_cast<int>(n.cores.size()), e.cores / e.numa);
}

INSTANTIATE_TEST_SUITE_P(Machines, BuiltinMachineShape,
                         ::testing::Values(Expected{"xeon-e5-2699v4", 2, 2, 2, 44, 44},
                                           Expected{"xeon-e5-4620", 4, 4, 4, 32, 32},
                                           Expected{"opteron-8356", 4, 4, 4, 16, 16},
                                           Expected{"epyc-7763-nps4", 2, 8, 16, 128, 256}),
                         [](const auto& param_info) {
                           std::string n(param_info.param.name);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Topology, SummaryCountsEverything) {
  EXPECT_EQ(machine("xeon-e5-2699v4").summary(), "2 packages, 2 NUMA nodes, 44 cores, 44 PUs");
  EXPECT_EQ(machine("epyc-7763-nps4").summary(), "2 packages, 8 NUMA nodes, 128 cores, 256 PUs");
  EXPECT_EQ(Topology::from_synthetic("pack:1 core:1 pu:1").summary(), "1 package, 1 NUMA node, 1 core, 1 PU");
  // A process confined to part of the machine (cgroup, batch system) says so.
  Topology confined = machine("xeon-e5-2699v4");
  confined.machine_pus = 88;
  EXPECT_EQ(confined.summary(), "2 packages, 2 NUMA nodes, 44 cores, 44 PUs (44 of 88 PUs allowed)");
}

TEST(Topology, EpycNumbersHardwareThreadsLikeLinux) {
  const Topology& t = machine("epyc-7763-nps4");
  EXPECT_EQ(t.cores[0].pus, (std::vector<int>{0, 128}));
  EXPECT_EQ(t.cores[64].pus, (std::vector<int>{64, 192}));
  EXPECT_EQ(t.cores[64].package, 1);
  EXPECT_EQ(t.cores[64].numa, 4);
  EXPECT_EQ(t.l3_domains[0].cores.size(), 8u);
  EXPECT_EQ(t.l3_domains[0].bytes, 32u << 20);
  EXPECT_EQ(t.max_pus_per_core(), 2);
}

TEST(Topology, BadSyntheticDescriptionNamesIt) {
  try {
    (void)Topology::from_synthetic("pack:2 bogus:3");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("\"pack:2 bogus:3\""), std::string::npos) << e.what();
  }
}

TEST(Topology, UnknownMachineListsTheKnownOnes) {
  try {
    (void)load_builtin_machine("cray-1");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cray-1"), std::string::npos) << what;
    EXPECT_NE(what.find("xeon-e5-2699v4"), std::string::npos) << what;
  }
}

// A temporary file path removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(std::string_view stem)
      : path_(std::filesystem::temp_directory_path() / fmt::format("wave3d-{}-{}.xml", stem, ::getpid())) {}
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(Topology, XmlFilesNameThemselvesInErrors) {
  TempFile missing("missing");
  try {
    (void)Topology::from_xml_file(missing.str());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.str()), std::string::npos) << e.what();
  }
  TempFile garbage("garbage");
  std::ofstream(garbage.str()) << "this is not XML\n";
  try {
    (void)Topology::from_xml_file(garbage.str());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(garbage.str()), std::string::npos) << e.what();
  }
}

TEST(Topology, XmlExportLoadsBackTheSame) {
  const std::string description(epyc_7763_nps4.synthetic);
  hwloc_topology_t h = nullptr;
  ASSERT_EQ(hwloc_topology_init(&h), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(h, description.c_str()), 0);
  ASSERT_EQ(hwloc_topology_load(h), 0);
  TempFile xml("roundtrip");
  const int exported = hwloc_topology_export_xml(h, xml.str().c_str(), 0);
  hwloc_topology_destroy(h);
  ASSERT_EQ(exported, 0);

  const Topology& synthetic = machine("epyc-7763-nps4");
  const Topology loaded = Topology::from_xml_file(xml.str());
  EXPECT_FALSE(loaded.is_this_system);
  EXPECT_NE(loaded.source.find(xml.str()), std::string::npos);
  EXPECT_EQ(loaded.summary(), synthetic.summary());
  ASSERT_EQ(loaded.cores.size(), synthetic.cores.size());
  for (std::size_t i = 0; i < loaded.cores.size(); ++i) {
    const Core& a = loaded.cores[i];
    const Core& b = synthetic.cores[i];
    EXPECT_EQ(std::tie(a.index, a.pus, a.package, a.numa, a.l3), std::tie(b.index, b.pus, b.package, b.numa, b.l3));
  }
  EXPECT_EQ(loaded.allowed_pus, synthetic.allowed_pus);
}

TEST(Topology, ThisSystemLoadsAndKnowsItIsReal) {
  const Topology t = Topology::load_this_system();
  EXPECT_TRUE(t.is_this_system);
  EXPECT_FALSE(t.cores.empty());
  EXPECT_FALSE(t.packages.empty());
  EXPECT_EQ(static_cast<int>(t.allowed_pus.size()), t.pu_count());
  EXPECT_GE(t.machine_pus, t.pu_count());
}

}  // namespace
}  // namespace wave3d
