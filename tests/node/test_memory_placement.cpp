// Memory placement policies and page locations: on this machine (one NUMA node) and, for the choices
// that need several nodes, on hwloc synthetic topologies (which describe, but never bind, memory).
#include <gtest/gtest.h>
#include <hwloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "field/aligned_buffer.hpp"
#include "field/field.hpp"
#include "field/first_touch.hpp"
#include "field/memory_placement.hpp"
#include "field/page_locations.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {
namespace {

std::uint64_t on_node(const PageHistogram& h, int node) {
  const auto it = h.pages_per_node.find(node);
  return it == h.pages_per_node.end() ? 0 : it->second;
}

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

void touch_every_page(AlignedBuffer& b) {
  auto* p = static_cast<char*>(b.data());
  for (std::size_t i = 0; i < b.bytes(); i += page_size()) p[i] = 1;
}

// The histogram must be either real or honestly unavailable.
#define SKIP_IF_UNAVAILABLE(h)                                                 \
  do {                                                                         \
    if (!(h).available) {                                                      \
      EXPECT_FALSE((h).unavailable_reason.empty());                            \
      EXPECT_TRUE((h).pages_per_node.empty());                                 \
      GTEST_SKIP() << "move_pages unavailable: " << (h).unavailable_reason;    \
    }                                                                          \
  } while (0)

// A synthetic topology, loaded, destroyed with the object.
class Synthetic {
 public:
  explicit Synthetic(const char* description) {
    if (hwloc_topology_init(&t_) != 0) throw std::runtime_error("hwloc_topology_init");
    if (hwloc_topology_set_synthetic(t_, description) != 0 || hwloc_topology_load(t_) != 0) {
      hwloc_topology_destroy(t_);
      throw std::runtime_error(std::string("cannot load synthetic topology ") + description);
    }
  }
  ~Synthetic() { hwloc_topology_destroy(t_); }
  Synthetic(const Synthetic&) = delete;
  Synthetic& operator=(const Synthetic&) = delete;
  hwloc_topology_t get() const { return t_; }
  hwloc_obj_t node(unsigned os_index) const { return hwloc_get_numanode_obj_by_os_index(t_, os_index); }
  hwloc_const_cpuset_t all_cpus() const { return hwloc_topology_get_topology_cpuset(t_); }

 private:
  hwloc_topology_t t_ = nullptr;
};

// --- page locations ---------------------------------------------------------------------------------

TEST(PageLocations, UntouchedPagesAreNotPresent) {
  AlignedBuffer b(64 * page_size());
  const PageHistogram h = locate_pages(b.data(), b.bytes());
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.page_bytes, page_size());
  EXPECT_EQ(h.pages_sampled, 64u);
  EXPECT_EQ(h.pages_not_present, 64u);
  EXPECT_TRUE(h.pages_per_node.empty());
}

TEST(PageLocations, TouchedPagesAreOnNodeZero) {
  AlignedBuffer b(300 * page_size());
  touch_every_page(b);
  const PageHistogram h = locate_pages(b.data(), b.bytes());
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.pages_sampled, 300u);
  EXPECT_EQ(h.pages_not_present, 0u);
  EXPECT_EQ(h.pages_other, 0u);
  ASSERT_EQ(h.pages_per_node.size(), 1u);  // this machine has one NUMA node
  EXPECT_EQ(h.pages_per_node.begin()->first, 0);
  EXPECT_EQ(h.pages_per_node.begin()->second, 300u);
}

TEST(PageLocations, SamplingLimitsTheCountAndSpreadsEvenly) {
  const std::size_t pages = 1000;
  AlignedBuffer b(pages * page_size());
  auto* p = static_cast<char*>(b.data());
  for (std::size_t i = pages / 2; i < pages; ++i) p[i * page_size()] = 1;  // only the second half
  const PageHistogram h = locate_pages(b.data(), b.bytes(), 100);
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.pages_sampled, 100u);
  EXPECT_EQ(h.pages_not_present, 50u);  // evenly spread samples see both halves equally
  EXPECT_EQ(on_node(h, 0), 50u);
}

TEST(PageLocations, CountsEveryPageTheAreaOverlaps) {
  AlignedBuffer b(4 * page_size());
  const PageHistogram h = locate_pages(static_cast<char*>(b.data()) + 1, 2 * page_size());
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.pages_sampled, 3u);  // a partial page at each end
  EXPECT_EQ(locate_pages(b.data(), 0).pages_sampled, 0u);
}

TEST(PageLocations, ManyChunksAndJson) {
  AlignedBuffer b(10000 * page_size());  // more pages than one move_pages chunk
  touch_every_page(b);
  const PageHistogram h = locate_pages(b.data(), b.bytes());
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.pages_sampled, 10000u);
  EXPECT_EQ(h.pages_per_node.at(0), 10000u);
  const nlohmann::json j = to_json(h);
  EXPECT_EQ(j.at("available"), true);
  EXPECT_EQ(j.at("pages_per_node").at("0"), 10000u);
  EXPECT_EQ(j.at("pages_sampled"), 10000u);
  EXPECT_NE(describe(h).find("node 0: 10000 (100.0%)"), std::string::npos) << describe(h);
}

TEST(PageLocations, UnavailableHistogramHasOnlyTheReason) {
  PageHistogram h;
  h.unavailable_reason = "move_pages(2) is not permitted here";
  const nlohmann::json j = to_json(h);
  EXPECT_EQ(j.at("available"), false);
  EXPECT_EQ(j.at("unavailable_reason"), h.unavailable_reason);
  EXPECT_FALSE(j.contains("pages_per_node"));
}

// --- placement on this machine -------------------------------------------------------------------------

bool is_notice_of_no_support(const std::optional<std::string>& notice) {
  return notice && notice->rfind("memory binding not supported here: ", 0) == 0;
}

TEST(MemoryPlacement, TouchOrderFollowsThePolicy) {
  EXPECT_EQ(touch_order(MemoryPolicy::serial), InitPolicy::serial);
  EXPECT_EQ(touch_order(MemoryPolicy::first_touch), InitPolicy::first_touch);
  EXPECT_EQ(touch_order(MemoryPolicy::interleave), InitPolicy::first_touch);
  EXPECT_EQ(touch_order(MemoryPolicy::node), InitPolicy::first_touch);
}

TEST(MemoryPlacement, BindingToNodeZeroPutsEveryPageThere) {
  const HwlocTopology topo;
  const Box owned{{0, 0, 0}, {64, 40, 30}};
  Field<float> f(owned, 4);
  const MemoryPlacement placement{MemoryPolicy::node, 0};
  const auto notice = place_memory(f.data(), f.allocated_bytes(), placement, topo);
  EXPECT_TRUE(!notice || is_notice_of_no_support(notice)) << *notice;
  first_touch(f, touch_order(placement.policy), Blocking{{0, 8, 8}});
  const PageHistogram h = locate_field_pages(f);
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(h.pages_not_present, 0u);
  EXPECT_EQ(h.pages_per_node.size(), 1u);
  EXPECT_EQ(on_node(h, 0), h.pages_sampled);
}

TEST(MemoryPlacement, UnknownNodeNamesThePolicyTheNodeAndTheNodesThatExist) {
  const HwlocTopology topo;
  AlignedBuffer b(4 * page_size());
  try {
    (void)place_memory(b.data(), b.bytes(), MemoryPlacement{MemoryPolicy::node, 99}, topo);
    FAIL() << "node 99 accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("init.policy = node"), std::string::npos) << what;
    EXPECT_NE(what.find("NUMA node 99"), std::string::npos) << what;
    EXPECT_NE(what.find("allowed: its NUMA nodes, 0"), std::string::npos) << what;
  }
  EXPECT_THROW(check_placement(MemoryPlacement{MemoryPolicy::node, -1}, topo.get()), std::invalid_argument);
  EXPECT_NO_THROW(check_placement(MemoryPlacement{MemoryPolicy::first_touch, 99}, topo.get()));  // node unused
}

TEST(MemoryPlacement, InterleaveWorksOrSaysWhyNot) {
  const HwlocTopology topo;
  AlignedBuffer b(256 * page_size());
  const auto notice = place_memory(b.data(), b.bytes(), MemoryPlacement{MemoryPolicy::interleave}, topo);
  EXPECT_TRUE(!notice || is_notice_of_no_support(notice)) << *notice;
  if (!notice) {
    // The kernel records the policy on the area: ask it back.
    const HwlocBitmap nodes(hwloc_bitmap_alloc());
    hwloc_membind_policy_t policy{};
    ASSERT_EQ(hwloc_get_area_membind(topo.get(), b.data(), b.bytes(), nodes.get(), &policy, HWLOC_MEMBIND_BYNODESET),
              0);
    EXPECT_EQ(policy, HWLOC_MEMBIND_INTERLEAVE);
    EXPECT_TRUE(hwloc_bitmap_isset(nodes.get(), 0));
  }
  touch_every_page(b);
  const PageHistogram h = locate_pages(b.data(), b.bytes());
  SKIP_IF_UNAVAILABLE(h);
  EXPECT_EQ(on_node(h, 0), 256u);
}

TEST(MemoryPlacement, FirstTouchAndSerialLeaveTheDefaultPolicy) {
  const HwlocTopology topo;
  AlignedBuffer b(8 * page_size());
  for (MemoryPolicy p : {MemoryPolicy::first_touch, MemoryPolicy::serial})
    EXPECT_FALSE(place_memory(b.data(), b.bytes(), MemoryPlacement{p}, topo));
  const HwlocBitmap nodes(hwloc_bitmap_alloc());
  hwloc_membind_policy_t policy{};
  if (hwloc_get_area_membind(topo.get(), b.data(), b.bytes(), nodes.get(), &policy, HWLOC_MEMBIND_BYNODESET) == 0) {
    EXPECT_NE(policy, HWLOC_MEMBIND_BIND);
    EXPECT_NE(policy, HWLOC_MEMBIND_INTERLEAVE);
  }
}

TEST(MemoryPlacement, NoHighBandwidthNodeHere) {
  const HwlocTopology topo;
  const HwlocBitmap cpus = process_cpuset(topo.get());
  const BandwidthNodeChoice choice = highest_bandwidth_node(topo.get(), cpus.get());
  EXPECT_FALSE(choice.node.has_value()) << choice.reason;
  EXPECT_NE(choice.reason.find("no high-bandwidth memory node"), std::string::npos) << choice.reason;
}

// --- synthetic topologies ----------------------------------------------------------------------------

TEST(MemoryPlacementSynthetic, InterleaveSpansTheNodesLocalToTheCpus) {
  const Synthetic two("pack:2 numa:1 core:2 pu:1");
  const HwlocBitmap all = interleave_nodeset(two.get(), two.all_cpus());
  EXPECT_EQ(hwloc_bitmap_weight(all.get()), 2);
  EXPECT_TRUE(hwloc_bitmap_isset(all.get(), 0));
  EXPECT_TRUE(hwloc_bitmap_isset(all.get(), 1));

  const hwloc_obj_t second_package = hwloc_get_obj_by_type(two.get(), HWLOC_OBJ_PACKAGE, 1);
  const HwlocBitmap one = interleave_nodeset(two.get(), second_package->cpuset);
  EXPECT_EQ(hwloc_bitmap_weight(one.get()), 1);
  EXPECT_TRUE(hwloc_bitmap_isset(one.get(), 1));

  const HwlocBitmap none(hwloc_bitmap_alloc());  // no CPUs: fall back to every allowed node
  EXPECT_EQ(hwloc_bitmap_weight(interleave_nodeset(two.get(), none.get()).get()), 2);
}

TEST(MemoryPlacementSynthetic, RefusesToBindThroughATopologyOfAnotherMachine) {
  const Synthetic two("pack:2 numa:1 core:2 pu:1");
  AlignedBuffer b(4 * page_size());
  EXPECT_THROW((void)place_memory(b.data(), b.bytes(), MemoryPlacement{MemoryPolicy::interleave}, two.get()),
               std::logic_error);
  EXPECT_THROW((void)place_memory(b.data(), b.bytes(), MemoryPlacement{MemoryPolicy::node, 1}, two.get()),
               std::logic_error);
  EXPECT_FALSE(place_memory(b.data(), b.bytes(), MemoryPlacement{MemoryPolicy::first_touch}, two.get()));
  EXPECT_NO_THROW(check_placement(MemoryPlacement{MemoryPolicy::node, 1}, two.get()));
  try {
    check_placement(MemoryPlacement{MemoryPolicy::node, 2}, two.get());
    FAIL() << "node 2 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("init.numa_node = 2 (init.policy = node): NUMA node 2 does not exist on this machine; allowed: its NUMA nodes, 0-1"),
              std::string::npos)
        << e.what();
  }
}

// One package with an ordinary node 0 and node 1 beside it.
constexpr const char* kTwoNodesOnePackage = "pack:1 [numa] [numa] core:2 pu:1";

void set_bandwidth(const Synthetic& t, unsigned node, std::uint64_t mib_per_s) {
  hwloc_location initiator{};
  initiator.type = HWLOC_LOCATION_TYPE_CPUSET;
  initiator.location.cpuset = const_cast<hwloc_cpuset_t>(t.all_cpus());  // copied by hwloc
  ASSERT_EQ(hwloc_memattr_set_value(t.get(), HWLOC_MEMATTR_ID_BANDWIDTH, t.node(node), &initiator, 0, mib_per_s), 0);
}

void set_subtype(const Synthetic& t, unsigned node, const char* subtype) {
  // hwloc owns obj->subtype as a malloc'ed string and frees it with the topology.
  std::free(t.node(node)->subtype);
  t.node(node)->subtype = strdup(subtype);
}

TEST(MemoryPlacementSynthetic, HigherBandwidthNodeIsChosen) {
  const Synthetic t(kTwoNodesOnePackage);
  set_subtype(t, 1, "HBM");
  set_bandwidth(t, 0, 100000);
  set_bandwidth(t, 1, 400000);
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  ASSERT_TRUE(c.node.has_value()) << c.reason;
  EXPECT_EQ(*c.node, 1);
  EXPECT_NE(c.reason.find("400000 MiB/s"), std::string::npos) << c.reason;
}

TEST(MemoryPlacementSynthetic, BandwidthValuesOverruleTheSubtype) {
  const Synthetic t(kTwoNodesOnePackage);
  set_subtype(t, 1, "HBM");
  set_bandwidth(t, 0, 400000);
  set_bandwidth(t, 1, 100000);
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  EXPECT_FALSE(c.node.has_value()) << c.reason;
  EXPECT_NE(c.reason.find("DRAM node 0"), std::string::npos) << c.reason;
}

TEST(MemoryPlacementSynthetic, ANodeTheHmatRatesFarFasterIsChosenWithoutASubtype) {
  // What QEMU's -numa hmat-lb (and firmware that describes HBM only in its HMAT table) gives hwloc.
  const Synthetic t(kTwoNodesOnePackage);
  set_bandwidth(t, 0, 10240);
  set_bandwidth(t, 1, 40960);
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  ASSERT_TRUE(c.node.has_value()) << c.reason;
  EXPECT_EQ(*c.node, 1);
  EXPECT_NE(c.reason.find("above 10240 MiB/s for DRAM node 0"), std::string::npos) << c.reason;
}

TEST(MemoryPlacementSynthetic, DramNodesThatDifferALittleAreNotHighBandwidthMemory) {
  const Synthetic t(kTwoNodesOnePackage);
  set_bandwidth(t, 0, 10240);
  set_bandwidth(t, 1, 12000);
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  EXPECT_FALSE(c.node.has_value()) << c.reason;
  EXPECT_NE(c.reason.find("no high-bandwidth memory node"), std::string::npos) << c.reason;
}

TEST(MemoryPlacementSynthetic, SubtypeDecidesWithoutBandwidthValues) {
  const Synthetic t(kTwoNodesOnePackage);
  set_subtype(t, 1, "MCDRAM");
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  ASSERT_TRUE(c.node.has_value()) << c.reason;
  EXPECT_EQ(*c.node, 1);
  EXPECT_NE(c.reason.find("MCDRAM"), std::string::npos) << c.reason;
}

TEST(MemoryPlacementSynthetic, NoValuesAndNoSubtypeMeansNoHighBandwidthNode) {
  const Synthetic t(kTwoNodesOnePackage);
  const BandwidthNodeChoice c = highest_bandwidth_node(t.get(), t.all_cpus());
  EXPECT_FALSE(c.node.has_value());
  EXPECT_NE(c.reason.find("every NUMA node is DRAM"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("no bandwidth attributes"), std::string::npos) << c.reason;
}

}  // namespace
}  // namespace wave3d
