#pragma once
// AlignedBuffer: one page-aligned anonymous mapping that is never written on allocation, so the
// first thread to touch a page decides its NUMA placement (the first-touch policy). Move-only.
#include <cstddef>
#include <utility>

namespace wave3d {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Throws std::runtime_error naming the size on failure. huge_pages: ask for transparent huge pages
  // (field/huge_pages.hpp) before any page is touched.
  explicit AlignedBuffer(std::size_t bytes, bool huge_pages = false);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept { swap(other); }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    AlignedBuffer(std::move(other)).swap(*this);
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void swap(AlignedBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
  }
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace wave3d
