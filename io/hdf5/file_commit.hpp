#pragma once
// Files published only when complete. A writer creates "<final>.tmp", fills and closes it, and then
// one process renames it over the final name, so a reader (or a restart after a job was killed
// mid-write) finds either the previous complete file or the new complete one, never a partial file
// under a final name. No MPI here: the writer makes sure every rank has closed the file first.
#include <cstdint>
#include <filesystem>

namespace wave3d::io {

// "<final>.tmp" in the same directory (a rename within one file system is atomic).
std::filesystem::path temporary_path(const std::filesystem::path& final_path);

// Whether `path` is named as a temporary_path: a file not (or not yet) published, whose writer may
// have been killed before, during or after filling it.
bool is_temporary_path(const std::filesystem::path& path);

// Refuses, before anything is written, a file of about `bytes` that the file system holding `path`
// has no room for (the space this process may use): HDF5 cannot close a file whose writes ran out of
// space cleanly. Throws std::runtime_error naming the file, what it needs and what is free. Quotas
// are not seen here; a write that still fails is reported by the writer.
void check_room_for(const std::filesystem::path& path, std::uint64_t bytes);

// Removes a temporary file left by a write that failed; never throws.
void discard_temporary(const std::filesystem::path& temporary) noexcept;

// Whether a published file must also survive a crash of the operating system (checkpoints), or only
// of the job (snapshots: the kernel already holds a killed job's completed writes).
enum class Durability { job_crash, system_crash };

// Renames `temporary` to `final_path` (replacing any file there). With Durability::system_crash the
// file is flushed to storage first and the directory after, so the rename survives a power cut too.
// Throws std::runtime_error naming the path and the system error.
void publish_file(const std::filesystem::path& temporary, const std::filesystem::path& final_path,
                  Durability durability = Durability::system_crash);

}  // namespace wave3d::io
