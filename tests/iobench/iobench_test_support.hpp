#pragma once
// Shared by the iobench tests: made-up buffer addresses and whole-file reads.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace wave3d::testing {

// A made-up buffer address for plans that never touch the memory they describe.
inline const std::byte* at(std::uintptr_t address) { return reinterpret_cast<const std::byte*>(address); }

// The bytes of a file, all of them.
inline std::vector<char> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace wave3d::testing
