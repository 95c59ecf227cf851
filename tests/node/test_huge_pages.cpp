// Transparent huge pages for the fields: asked for with madvise before the first touch, and seen in
// the process's AnonHugePages afterwards where the system's THP mode allows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "field/field.hpp"
#include "field/huge_pages.hpp"

namespace wave3d {
namespace {

// Writes every allocated element, as first touch does.
void touch(Field<float>& f) { std::fill(f.data(), f.data() + f.allocated_elements(), 1.0f); }

TEST(HugePages, TheSystemModeIsOneOfTheKernelsWords) {
  const std::string mode = transparent_huge_page_mode();
  EXPECT_TRUE(mode == "always" || mode == "madvise" || mode == "never" || mode == "unavailable") << mode;
}

TEST(HugePages, AFieldThatAsksForThemIsBackedByThemWhereTheSystemAllows) {
  const std::string mode = transparent_huge_page_mode();
  if (mode != "always" && mode != "madvise") GTEST_SKIP() << "transparent huge pages are " << mode << " here";
  const auto before = anonymous_huge_page_bytes();
  if (!before) GTEST_SKIP() << "this kernel reports no AnonHugePages in /proc/self/smaps_rollup";
  Field<float> field(Box{{0, 0, 0}, {128, 128, 64}}, 8, true);  // 5.6 MiB: at least two whole 2 MiB pages
  touch(field);
  const auto after = anonymous_huge_page_bytes();
  ASSERT_TRUE(after);
  EXPECT_GE(*after, *before + 2 * 1024 * 1024) << "THP " << mode << ": the field got no huge page";
}

TEST(HugePages, AFieldThatDoesNotAskGetsNoneUnderMadvise) {
  if (transparent_huge_page_mode() != "madvise") GTEST_SKIP() << "only madvise mode leaves base pages to those that do not ask";
  const auto before = anonymous_huge_page_bytes();
  if (!before) GTEST_SKIP() << "this kernel reports no AnonHugePages in /proc/self/smaps_rollup";
  Field<float> field(Box{{0, 0, 0}, {128, 128, 64}}, 8, false);
  touch(field);
  EXPECT_EQ(anonymous_huge_page_bytes(), before);
}

}  // namespace
}  // namespace wave3d
