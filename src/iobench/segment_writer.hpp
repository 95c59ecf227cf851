#pragma once
// Writing segments to an open file descriptor with positioned writes, as several threads may do on the
// same descriptor at once (pwrite/pwritev do not move the shared file position).
#include <span>
#include <string_view>

#include "iobench/write_segment.hpp"

namespace wave3d {

// Writes every segment at its file offset. Segments that continue each other in the file (the next
// one starts where the previous ended) go to the kernel as one pwritev(2) of up to IOV_MAX buffers,
// so the rows of a subdomain that span the whole x axis cost one call per IOV_MAX rows, not one each.
// Short writes are continued and EINTR retried. Throws std::runtime_error naming `file` (for the
// message), the offset and the system's reason (ENOSPC, EIO, ...).
void write_segments(int fd, std::span<const WriteSegment> segments, std::string_view file);

}  // namespace wave3d
