#pragma once
// Every JSON document wave3d writes (to a file, or `plan --json` to stdout) has the same header, and
// every file is written the same way:
//   format          what the file holds, e.g. "wave3d-run"; readers check it before trusting any key
//   format_version  raised whenever a key a reader may rely on changes meaning or place
//   command         the subcommand that wrote it ("run", "bench", ...)
//   provenance      who wrote it: version, build, machine, command line, environment (provenance.hpp)
// beside the document's own keys, and always atomically (a reader never sees half a file).
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wave3d {

struct JsonFormat {
  std::string_view name;
  int version;
};

// Key names follow one rule in every document: a duration ends in _s (seconds) or _ns, an amount of
// memory in _bytes, a rate in _per_second after what it counts (mpoints_per_second, gbytes_per_second
// with 1 GB = 10^9 bytes, gibytes_per_second, gflop_per_second). Renames under that rule raised:
// wave3d-run 2 (metrics.seconds -> loop_s and the other "seconds" keys after it) and 3 (metrics.gflops ->
// gflop_per_second); wave3d-bench 2, wave3d-stream 2 and wave3d-iobench 2 (the rates, and the times of the
// repetitions as repetitions_s). wave3d-bench 3: "blocks" is "auto" when the tuner chose them, and each
// case has the "blocks" it ran with and its "tuning". wave3d-blocking-cache 3: each key has
// "neighbour_faces", and the measured rates count owned points only (deep halos are cost).
// wave3d-blocking-cache 4: an entry has the tuner's "trial" on real steps (and "trial_skipped"), whose
// winner is its "blocking". wave3d-blocking-cache 5: the key, the choice, each measurement and each
// contender of the trial have "prefetch_rows" (the z columns' prefetch distance, measured since);
// files of another version are not read.
inline constexpr JsonFormat kRunFormat{"wave3d-run", 3};
inline constexpr JsonFormat kBenchFormat{"wave3d-bench", 3};
inline constexpr JsonFormat kStreamFormat{"wave3d-stream", 2};
inline constexpr JsonFormat kNoiseFormat{"wave3d-noise", 1};
inline constexpr JsonFormat kIobenchFormat{"wave3d-iobench", 2};
inline constexpr JsonFormat kAdviseFormat{"wave3d-advise", 1};
inline constexpr JsonFormat kTuningCacheFormat{"wave3d-blocking-cache", 5};
inline constexpr JsonFormat kPlanFormat{"wave3d-plan", 1};  // wave3d plan --json, on stdout

// The header keys above as one object.
nlohmann::json json_header(JsonFormat format, std::string_view command, nlohmann::json provenance);

// `body` with the header's keys set (a body key of the same name is replaced), written atomically.
// Throws std::runtime_error naming the path when it cannot be written.
void write_json_document(const std::filesystem::path& path, JsonFormat format, std::string_view command,
                         nlohmann::json provenance, nlohmann::json body);

// Before any work: creates the directory of an output file (JSON, PNG) and checks a file can be
// created there, so a bad destination fails at once instead of after a long measurement. `option`
// names the setting in the error, e.g. "--json". Leaves nothing behind.
void check_output_file(const std::filesystem::path& path, std::string_view option);

}  // namespace wave3d
