#include "solver/tuning_cache.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "config/enum_names.hpp"
#include "output/json_document.hpp"
#include "output/provenance.hpp"
#include "runtime/statistics.hpp"
#include "solver/wave_solver.hpp"

namespace wave3d {
namespace {

nlohmann::json read_document(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  // A file that does not parse (cut short, edited by hand) is treated as empty and rewritten; so is one
  // of another format version, whose entries were chosen by other rules (an older tuner's choice
  // across ranks never ran on real steps).
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) return nlohmann::json::object();
  if (doc.value("format", std::string()) != kTuningCacheFormat.name ||
      doc.value("format_version", -1) != kTuningCacheFormat.version)
    return nlohmann::json::object();
  return doc;
}

}  // namespace

nlohmann::json TuningKey::to_json() const {
  return {{"machine", machine}, {"threads", threads}, {"kernel", kernel}, {"radius", radius},
          {"precision", precision}, {"subdomain", subdomain}, {"neighbour_faces", neighbour_faces}, {"temporal_halo", temporal_halo}, {"tuned_size", size},
          {"tuned_steps", steps}, {"sweep_steps", sweep_steps},
          {"prefetch_rows", prefetch_rows > 0 ? nlohmann::json(prefetch_rows) : nlohmann::json("auto")}};
}

std::optional<std::filesystem::path> tuning_cache_path(const std::string& setting) {
  if (setting == "off") return std::nullopt;
  if (!setting.empty()) return std::filesystem::path(setting);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::filesystem::path(xdg) / "wave3d" / "blocking.json";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::filesystem::path(home) / ".cache" / "wave3d" / "blocking.json";
  return std::nullopt;
}

bool CachedTuning::answers(double wanted_seconds) const {
  return !budget_spent || budget_seconds * kCutShortTolerance >= wanted_seconds;
}

std::optional<CachedTuning> read_tuning_cache(const std::filesystem::path& file, const TuningKey& key,
                                          double wanted_seconds) {
  const nlohmann::json doc = read_document(file);
  if (!doc.contains("entries")) return std::nullopt;
  const nlohmann::json wanted = key.to_json();
  for (const nlohmann::json& entry : doc["entries"]) {
    if (!entry.is_object() || entry.value("key", nlohmann::json()) != wanted) continue;
    try {
      CachedTuning found;
      found.budget_seconds = entry.value("budget_s", 0.0);
      found.budget_spent = entry.value("budget_spent", false);
      if (!found.answers(wanted_seconds)) return std::nullopt;
      Blocking& b = found.blocking;
      b.size = entry.at("blocking").at("size").get<Index3>();
      b.steps = entry.at("blocking").at("steps").get<int>();
      b.prefetch_rows = entry.at("blocking").at("prefetch_rows").get<int>();
      if (b.steps < 1 || b.size[0] < 0 || b.size[1] < 0 || b.size[2] < 0) return std::nullopt;
      if (b.prefetch_rows < 0 || b.prefetch_rows > kMaxPrefetchRows) return std::nullopt;  // 0: the rule
      // Stored as the variant's name, which is also the stencil.kernel word that runs it.
      const auto choice = enum_from_name<KernelChoice>(entry.at("blocking").at("kernel").get<std::string>());
      if (!choice || *choice == KernelChoice::automatic) return std::nullopt;
      found.variant = kernel_variant(*choice, key.radius);
      const auto halo = enum_from_name<TemporalHalo>(entry.at("blocking").at("temporal_halo").get<std::string>());
      if (!halo || *halo == TemporalHalo::automatic) return std::nullopt;
      found.temporal_halo = *halo;
      std::vector<double> rates;
      for (const nlohmann::json& m : entry.value("measured", nlohmann::json::array()))
        if (m.at("kernel") == entry.at("blocking").at("kernel") && m.at("size").get<Index3>() == b.size &&
            m.at("steps").get<int>() == b.steps && m.at("prefetch_rows").get<int>() == b.prefetch_rows)
          rates.push_back(m.at("mpoints_per_second").get<double>());
      if (!rates.empty()) found.mpoints_per_second = median_of(rates);
      return found;
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

nlohmann::json trial_to_json(const TuningOutcome& outcome) {
  nlohmann::json contenders = nlohmann::json::array();
  for (const TrialMeasurement& t : outcome.trial)
    contenders.push_back({{"kernel", to_string(t.variant)},
                          {"size", t.blocking.size},
                          {"steps", t.blocking.steps},
                          {"prefetch_rows", t.blocking.prefetch_rows},
                          {"temporal_halo", enum_name(t.halo)},
                          {"seconds_per_step", t.seconds_per_step},
                          {"seconds_per_step_rounds", t.rounds}});
  return {{"trial", contenders},
          {"trial_skipped", outcome.trial_skipped.empty() ? nlohmann::json(nullptr) : nlohmann::json(outcome.trial_skipped)},
          {"trial_note", outcome.trial_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(outcome.trial_note)}};
}

void write_tuning_cache(const std::filesystem::path& file, const TuningKey& key, const TuningOutcome& outcome) {
  nlohmann::json doc = read_document(file);
  if (!doc.contains("entries")) doc = {{"entries", nlohmann::json::array()}};
  const nlohmann::json wanted = key.to_json();
  nlohmann::json kept = nlohmann::json::array();
  for (const nlohmann::json& entry : doc["entries"])
    if (!entry.is_object() || entry.value("key", nlohmann::json()) != wanted) kept.push_back(entry);
  nlohmann::json measured = nlohmann::json::array();
  for (const TuningMeasurement& m : outcome.measured)
    measured.push_back({{"kernel", to_string(m.variant)}, {"size", m.blocking.size}, {"steps", m.blocking.steps},
                        {"prefetch_rows", m.blocking.prefetch_rows}, {"mpoints_per_second", m.mpoints_per_second}});
  nlohmann::json entry = {{"key", wanted},
                           {"blocking", {{"kernel", to_string(outcome.variant)}, {"size", outcome.blocking.size},
                                         {"steps", outcome.blocking.steps},
                                         {"prefetch_rows", outcome.blocking.prefetch_rows},
                                         {"temporal_halo", enum_name(outcome.temporal_halo)}}},
                           {"measured", measured},
                           {"measure_s", outcome.seconds},
                           {"budget_s", outcome.budget_seconds},
                           {"budget_spent", outcome.budget_spent}};
  entry.update(trial_to_json(outcome));
  kept.push_back(entry);
  doc["entries"] = kept;
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create " + file.parent_path().string() + ": " + ec.message());
  write_json_document(file, kTuningCacheFormat, "tune", build_provenance(), doc);
}

}  // namespace wave3d
