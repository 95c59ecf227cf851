#pragma once
// Transparent huge pages for the large arrays (fields, STREAM arrays). A bandwidth-bound stencil reads
// 2R + 1 planes per point, each on another 4 KiB page: with base pages the TLB misses on most of
// them, with 2 MiB pages it covers the whole working set. Systems with THP set to "madvise" (Debian's
// and Ubuntu's default) give huge pages only to memory that asks for them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace wave3d {

// Asks the kernel to back [data, data + bytes) with transparent huge pages (madvise MADV_HUGEPAGE)
// before its pages are first touched. False when the kernel refuses (THP not built in); the memory is
// usable either way.
bool advise_transparent_huge_pages(void* data, std::size_t bytes);

// The system's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled ("always",
// "madvise", "never"), or "unavailable" where the file is missing.
std::string transparent_huge_page_mode();

// Bytes of this process's anonymous memory backed by huge pages now (AnonHugePages in
// /proc/self/smaps_rollup); nothing where the kernel does not say.
std::optional<std::uint64_t> anonymous_huge_page_bytes();

}  // namespace wave3d
