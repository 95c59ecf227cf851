#include "field/aligned_buffer.hpp"

#include "field/huge_pages.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace wave3d {

AlignedBuffer::AlignedBuffer(std::size_t bytes, bool huge_pages) : bytes_(bytes) {
  if (bytes == 0) return;
  // An anonymous private mapping reserves address space only; pages materialise on first write.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("cannot allocate " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  }
  data_ = p;
  if (huge_pages) (void)advise_transparent_huge_pages(p, bytes);  // a refusal leaves base pages, no error
}

AlignedBuffer::~AlignedBuffer() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

}  // namespace wave3d
