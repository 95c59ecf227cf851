#include "engine/field_io_record.hpp"

#include <fmt/format.h>

#include "runtime/byte_size.hpp"

namespace wave3d::engine {
namespace {

std::string rate(std::uint64_t bytes, double seconds) {
  if (seconds <= 0) return "rate not measurable";
  return fmt::format("{:.1f} MB/s", static_cast<double>(bytes) / seconds / 1e6);
}

}  // namespace

nlohmann::json field_io_json(const FieldIoRecord& r) {
  return {{"restarted_from", r.restarted_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.restarted_from)},
          {"first_step", r.first_step},
          {"restart_s", r.restart_seconds},
          {"snapshots",
           {{"files", r.snapshots},
            {"sidecar", r.sidecar.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sidecar)},
            {"bytes", r.snapshot_bytes},
            {"write_s", r.snapshot_seconds}}},
          {"checkpoints",
           {{"files", r.checkpoints},
            {"sidecar", r.checkpoint_sidecar.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.checkpoint_sidecar)},
            {"bytes", r.checkpoint_bytes},
            {"write_s", r.checkpoint_seconds}}}};
}

std::string format_field_io(const FieldIoRecord& r) {
  std::string s;
  if (!r.restarted_from.empty())
    s += fmt::format("restart:     continued from {} at step {} (read in {:.3f} s)\n", r.restarted_from, r.first_step,
                     r.restart_seconds);
  if (!r.snapshots.empty())
    s += fmt::format("snapshots:   {} written, {} in {:.3f} s ({}); for ParaView/VisIt: {}\n", r.snapshots.size(),
                     format_bytes(r.snapshot_bytes), r.snapshot_seconds, rate(r.snapshot_bytes, r.snapshot_seconds),
                     r.sidecar);
  if (!r.checkpoints.empty())
    s += fmt::format("checkpoints: {} written, {} in {:.3f} s ({}); last: {}\n", r.checkpoints.size(),
                     format_bytes(r.checkpoint_bytes), r.checkpoint_seconds,
                     rate(r.checkpoint_bytes, r.checkpoint_seconds), r.checkpoints.back());
  return s;
}

}  // namespace wave3d::engine
