#pragma once
// Attributes of an HDF5 object (a file's root group, a dataset) as plain values. Writing one is
// collective in a file opened through MPI-IO: every rank passes the same value. Strings are stored as
// fixed-length, null-terminated ASCII/UTF-8 (what h5dump, h5py and ParaView all read); any length is
// fine, the file format stores large attributes densely. Readers accept fixed- and variable-length
// strings and any integer or floating type that converts; a missing attribute, or one of the wrong
// kind, throws Hdf5Error naming it.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "geometry/box.hpp"

namespace wave3d::io {

void write_int_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_uint64_attribute(hid_t object, const std::string& name, std::uint64_t value);
void write_real_attribute(hid_t object, const std::string& name, double value);
void write_text_attribute(hid_t object, const std::string& name, std::string_view value);
void write_int3_attribute(hid_t object, const std::string& name, const Index3& value);

bool has_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
std::uint64_t read_uint64_attribute(hid_t object, const std::string& name);
double read_real_attribute(hid_t object, const std::string& name);
std::string read_text_attribute(hid_t object, const std::string& name);
Index3 read_int3_attribute(hid_t object, const std::string& name);

}  // namespace wave3d::io
