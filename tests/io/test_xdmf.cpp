// The XDMF sidecar's text (pure, no files).
#include <gtest/gtest.h>

#include <string>

#include "io/hdf5/xdmf.hpp"

namespace {

using namespace wave3d::io;

TEST(Xdmf, ListsEveryFrameWithZyxDimensions) {
  const std::string xml = format_xdmf({{"wavefield_000010.h5", "/wavefield", 10, 0.01}, {"a&b.h5", "/wavefield", 20, 0.02}},
                                      {40, 30, 20}, 10.0, 4, "wavefield");
  EXPECT_NE(xml.find("CollectionType=\"Temporal\""), std::string::npos);
  EXPECT_NE(xml.find("<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"20 30 40\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("Precision=\"4\" Format=\"HDF\">wavefield_000010.h5:/wavefield</DataItem>"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find(">a&amp;b.h5:/wavefield<"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Time Value=\"0.02\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find(">10 10 10</DataItem>"), std::string::npos) << xml;
}

TEST(Xdmf, EscapesMarkup) { EXPECT_EQ(xml_escape(R"(<a href="x">'&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;"); }

}  // namespace
