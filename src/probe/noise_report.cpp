#include "probe/noise_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <optional>

namespace wave3d {
namespace {

std::string percent(double fraction) { return fmt::format("{:.3f}", 100.0 * fraction); }

struct Row {
  std::string rank, host, cpu, core, method, samples, baseline, noise, largest, p99, detours, threshold;
};

std::vector<Row> table_rows(const std::vector<RankNoise>& ranks) {
  std::vector<Row> rows;
  rows.push_back({"rank", "host", "cpu", "core", "method", "samples", "baseline", "noise %", "largest", "p99 detour",
                  "detours", "threshold"});
  for (const RankNoise& r : ranks) {
    for (const CoreNoise& c : r.cores) {
      const std::string core = c.core ? fmt::format("{}", *c.core) : "?";
      if (c.fwq) {
        const FwqSummary& f = *c.fwq;
        rows.push_back({fmt::format("{}", r.rank), r.host, fmt::format("{}", c.cpu), core, "fwq",
                        fmt::format("{}", f.samples), format_duration_ns(static_cast<double>(f.baseline_ns)),
                        percent(f.noise_fraction), format_duration_ns(static_cast<double>(f.largest_detour_ns)),
                        format_duration_ns(static_cast<double>(f.p99_detour_ns)), "-", "-"});
      }
      if (c.selfish) {
        const SelfishSummary& s = *c.selfish;
        const bool any = s.detours > 0;
        rows.push_back({fmt::format("{}", r.rank), r.host, fmt::format("{}", c.cpu), core, "selfish",
                        fmt::format("{}", s.reads), format_duration_ns(static_cast<double>(s.min_gap_ns)),
                        percent(s.noise_fraction),
                        any ? format_duration_ns(static_cast<double>(s.largest_detour_ns)) : "-",
                        any ? format_duration_ns(static_cast<double>(s.p99_detour_ns)) : "-",
                        fmt::format("{}", s.detours), format_duration_ns(static_cast<double>(s.threshold_ns))});
      }
    }
  }
  return rows;
}

}  // namespace

std::string format_duration_ns(double ns) {
  static constexpr std::array<const char*, 4> units{"ns", "us", "ms", "s"};
  double value = ns;
  std::size_t unit = 0;
  // 999.7 us would print as "1.00e+03 us" at three digits: move to the next unit first.
  while (unit + 1 < units.size() && std::abs(value) >= 999.5) {
    value /= 1000.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} ns", value);
  // Three significant digits, trailing zeros kept: 1.50 ms, 12.3 us, 131 us.
  const int decimals = std::abs(value) >= 99.95 ? 0 : std::abs(value) >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f} {}", value, decimals, units[unit]);
}

std::string format_noise_table(const std::vector<RankNoise>& ranks) {
  const std::vector<Row> rows = table_rows(ranks);
  constexpr std::size_t columns = 12;
  std::array<std::size_t, columns> width{};
  auto fields = [](const Row& r) {
    return std::array<const std::string*, columns>{&r.rank,     &r.host,     &r.cpu,   &r.core,
                                                   &r.method,   &r.samples,  &r.baseline, &r.noise,
                                                   &r.largest,  &r.p99,      &r.detours,  &r.threshold};
  };
  for (const Row& r : rows) {
    const auto f = fields(r);
    for (std::size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], f[i]->size());
  }
  std::string out;
  for (const Row& r : rows) {
    const auto f = fields(r);
    for (std::size_t i = 0; i < columns; ++i) {
      if (i > 0) out += "  ";
      // Text columns (host, method) left-aligned, numbers right-aligned.
      const bool left = i == 1 || i == 4;
      out += left ? fmt::format("{:<{}}", *f[i], width[i]) : fmt::format("{:>{}}", *f[i], width[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

std::string format_noise_notes(const std::vector<RankNoise>& ranks) {
  std::string out;
  for (const RankNoise& r : ranks) {
    for (const CoreNoise& c : r.cores) {
      if (c.ran_on && *c.ran_on != c.cpu)
        out += fmt::format("note: rank {} on {}: the probe thread for CPU {} ended on CPU {}\n", r.rank, r.host, c.cpu,
                           *c.ran_on);
      if (c.selfish && c.selfish->dropped > 0)
        out += fmt::format("note: rank {} on {}, CPU {}: {} of {} detours did not fit the trace storage; they are in "
                           "every total but not in the trace or the p99\n",
                           r.rank, r.host, c.cpu, c.selfish->dropped, c.selfish->detours);
    }
  }
  return out;
}

std::string format_noise_histogram(const std::vector<RankNoise>& ranks) {
  bool any_fwq = false, any_selfish = false;
  Log2Histogram fwq, selfish;
  for (const RankNoise& r : ranks)
    for (const CoreNoise& c : r.cores) {
      if (c.fwq) {
        any_fwq = true;
        fwq += c.fwq->histogram;
      }
      if (c.selfish) {
        any_selfish = true;
        selfish += c.selfish->histogram;
      }
    }
  if (!any_fwq && !any_selfish) return {};
  std::optional<int> low, high;
  for (int k = 0; k < Log2Histogram::bin_count; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if ((any_fwq && fwq.bins[i] > 0) || (any_selfish && selfish.bins[i] > 0)) {
      if (!low) low = k;
      high = k;
    }
  }
  std::string out = "detour histogram over all probed CPUs";
  if (any_fwq) out += "; fwq: one count per quantum, its time above the baseline";
  if (any_selfish) out += "; selfish: one count per detour";
  out += '\n';
  auto line = [&](const std::string& from, const std::string& to, const std::string& f, const std::string& s) {
    std::string l = fmt::format("{:>9}  {:>9}", from, to);
    if (any_fwq) l += fmt::format("  {:>10}", f);
    if (any_selfish) l += fmt::format("  {:>10}", s);
    out += l + '\n';
  };
  line("from", "below", "fwq", "selfish");
  if (any_fwq && fwq.zero > 0) line("0", "1 ns", fmt::format("{}", fwq.zero), "-");
  if (low) {
    for (int k = *low; k <= *high; ++k) {
      const auto i = static_cast<std::size_t>(k);
      line(format_duration_ns(static_cast<double>(log2_bin_floor(k))),
           format_duration_ns(static_cast<double>(log2_bin_ceiling(k))), fmt::format("{}", fwq.bins[i]),
           fmt::format("{}", selfish.bins[i]));
    }
  }
  return out;
}

}  // namespace wave3d
