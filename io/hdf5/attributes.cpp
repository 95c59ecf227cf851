#include "io/hdf5/attributes.hpp"

#include <fmt/format.h>

#include <vector>

#include "io/hdf5/hid.hpp"

namespace wave3d::io {
namespace {

void write_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t memory_type, hsize_t count,
                     const void* value) {
  silence_hdf5_errors();
  const Hid space = count == 1 ? Hid(H5Screate(H5S_SCALAR), H5Sclose, "cannot create a scalar dataspace")
                               : Hid(H5Screate_simple(1, &count, nullptr), H5Sclose, "cannot create a dataspace");
  const Hid attribute(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                      "cannot create attribute '" + name + "'");
  check_status(H5Awrite(attribute.get(), memory_type, value), "cannot write attribute '" + name + "'");
}

Hid open_attribute(hid_t object, const std::string& name) {
  silence_hdf5_errors();
  if (!has_attribute(object, name)) throw Hdf5Error("attribute '" + name + "' is missing");
  return Hid(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "cannot open attribute '" + name + "'");
}

// Number of elements of an attribute (1 for a scalar).
hssize_t element_count(hid_t attribute, const std::string& name) {
  const Hid space(H5Aget_space(attribute), H5Sclose, "cannot get the dataspace of attribute '" + name + "'");
  return H5Sget_simple_extent_npoints(space.get());
}

H5T_class_t type_class(hid_t attribute, const std::string& name) {
  const Hid type(H5Aget_type(attribute), H5Tclose, "cannot get the type of attribute '" + name + "'");
  return H5Tget_class(type.get());
}

template <typename T>
std::vector<T> read_numbers(hid_t object, const std::string& name, hid_t memory_type, bool integer, hssize_t expected) {
  const Hid attribute = open_attribute(object, name);
  const H5T_class_t kind = type_class(attribute.get(), name);
  if (kind != H5T_INTEGER && (integer || kind != H5T_FLOAT))
    throw Hdf5Error(fmt::format("attribute '{}' is not {}", name, integer ? "an integer" : "a number"));
  if (element_count(attribute.get(), name) != expected)
    throw Hdf5Error(fmt::format("attribute '{}' does not hold {} value{}", name, expected, expected == 1 ? "" : "s"));
  std::vector<T> values(static_cast<std::size_t>(expected));
  check_status(H5Aread(attribute.get(), memory_type, values.data()), "cannot read attribute '" + name + "'");
  return values;
}

}  // namespace

void write_int_attribute(hid_t object, const std::string& name, std::int64_t value) {
  write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &value);
}

void write_uint64_attribute(hid_t object, const std::string& name, std::uint64_t value) {
  write_attribute(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &value);
}

void write_real_attribute(hid_t object, const std::string& name, double value) {
  write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &value);
}

void write_int3_attribute(hid_t object, const std::string& name, const Index3& value) {
  write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 3, value.data());
}

void write_text_attribute(hid_t object, const std::string& name, std::string_view value) {
  silence_hdf5_errors();
  const Hid type(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create a string type");
  check_status(H5Tset_size(type.get(), value.size() + 1), "cannot size a string type");
  check_status(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "cannot set a string type's padding");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot set a string type's character set");
  const std::string terminated(value);  // the null terminator the type's size counts
  write_attribute(object, name, type.get(), type.get(), 1, terminated.c_str());
}

bool has_attribute(hid_t object, const std::string& name) {
  silence_hdf5_errors();
  const htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) throw_hdf5_error("cannot look for attribute '" + name + "'");
  return exists > 0;
}

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  return read_numbers<std::int64_t>(object, name, H5T_NATIVE_INT64, true, 1)[0];
}

std::uint64_t read_uint64_attribute(hid_t object, const std::string& name) {
  return read_numbers<std::uint64_t>(object, name, H5T_NATIVE_UINT64, true, 1)[0];
}

double read_real_attribute(hid_t object, const std::string& name) {
  return read_numbers<double>(object, name, H5T_NATIVE_DOUBLE, false, 1)[0];
}

Index3 read_int3_attribute(hid_t object, const std::string& name) {
  const std::vector<std::int64_t> v = read_numbers<std::int64_t>(object, name, H5T_NATIVE_INT64, true, 3);
  return {v[0], v[1], v[2]};
}

std::string read_text_attribute(hid_t object, const std::string& name) {
  const Hid attribute = open_attribute(object, name);
  const Hid type(H5Aget_type(attribute.get()), H5Tclose, "cannot get the type of attribute '" + name + "'");
  if (H5Tget_class(type.get()) != H5T_STRING) throw Hdf5Error("attribute '" + name + "' is not a string");
  if (element_count(attribute.get(), name) != 1) throw Hdf5Error("attribute '" + name + "' is not a single string");
  const htri_t variable = H5Tis_variable_str(type.get());
  if (variable < 0) throw_hdf5_error("cannot inspect the type of attribute '" + name + "'");
  if (variable > 0) {
    const Hid memory(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create a string type");
    check_status(H5Tset_size(memory.get(), H5T_VARIABLE), "cannot size a string type");
    char* text = nullptr;
    check_status(H5Aread(attribute.get(), memory.get(), &text), "cannot read attribute '" + name + "'");
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string buffer(size, '\0');
  check_status(H5Aread(attribute.get(), type.get(), buffer.data()), "cannot read attribute '" + name + "'");
  buffer.resize(buffer.find('\0') == std::string::npos ? size : buffer.find('\0'));
  return buffer;
}

}  // namespace wave3d::io
