#pragma once
// `wave3d iobench`: the NUMA-aware parallel write study (SEEDS.md section 3) on this node: write
// bandwidth of one buffer against the number of I/O threads, with the buffer on every NUMA node or on
// one, into one shared file or a file per thread, to a memory file system (/dev/shm by default) or a
// given directory; and the path matrix (buffer node x thread node x page-cache node; on one NUMA node
// only the local path exists). Rank 0 measures; other ranks wait idle. Table on stdout, --json, --png.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_iobench_command(CLI::App& parent);

}  // namespace wave3d::app
