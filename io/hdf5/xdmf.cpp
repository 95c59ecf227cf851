#include "io/hdf5/xdmf.hpp"

#include <fmt/format.h>

#include <iterator>

namespace wave3d::io {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_xdmf(const std::vector<XdmfFrame>& frames, const Index3& n, double spacing, std::size_t value_bytes,
                        const std::string& attribute) {
  // XDMF lists dimensions slowest first (z, y, x), as the HDF5 datasets store them.
  const std::string dims = fmt::format("{} {} {}", n[2], n[1], n[0]);
  std::string xml =
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"3.0\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"wavefield\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  auto out = std::back_inserter(xml);
  for (const XdmfFrame& f : frames) {
    fmt::format_to(out,
                   "      <Grid Name=\"step {step}\" GridType=\"Uniform\">\n"
                   "        <Time Value=\"{time}\"/>\n"
                   "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{dims}\"/>\n"
                   "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
                   "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">0 0 0</DataItem>\n"
                   "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
                   "{h} {h} {h}</DataItem>\n"
                   "        </Geometry>\n"
                   "        <Attribute Name=\"{name}\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                   "          <DataItem Dimensions=\"{dims}\" NumberType=\"Float\" Precision=\"{bytes}\" "
                   "Format=\"HDF\">{file}:{dataset}</DataItem>\n"
                   "        </Attribute>\n"
                   "      </Grid>\n",
                   fmt::arg("step", f.step), fmt::arg("time", f.time), fmt::arg("dims", dims), fmt::arg("h", spacing),
                   fmt::arg("name", xml_escape(attribute)), fmt::arg("bytes", value_bytes),
                   fmt::arg("file", xml_escape(f.file)), fmt::arg("dataset", xml_escape(f.dataset)));
  }
  xml +=
      "    </Grid>\n"
      "  </Domain>\n"
      "</Xdmf>\n";
  return xml;
}

}  // namespace wave3d::io
