#include "app/placement_cli.hpp"

#include <fmt/format.h>

#include <vector>

#include "topology/machines.hpp"

namespace wave3d::app {

TopologyOptions add_topology_options(CLI::App* cli, TopologyChoice& choice, const std::string& default_text) {
  std::vector<std::string> machine_names;
  for (const BuiltinMachine& m : builtin_machines()) machine_names.emplace_back(m.name);
  TopologyOptions o;
  o.machine = cli->add_option("--machine", choice.machine, "A built-in test machine (default: " + default_text + ")")
                  ->check(CLI::IsMember(machine_names));
  o.synthetic = cli->add_option("--synthetic", choice.synthetic,
                                "An hwloc synthetic topology, e.g. \"pack:2 numa:1 l3:1 core:22 pu:1\"")
                    ->excludes(o.machine);
  o.xml = cli->add_option("--xml", choice.xml, "An hwloc XML topology file (lstopo file.xml)")
              ->check(CLI::ExistingFile)
              ->excludes(o.machine)
              ->excludes(o.synthetic);
  return o;
}

Topology load_topology(const TopologyChoice& choice, const ReservedCores& reserve) {
  if (!choice.machine.empty()) return load_builtin_machine(choice.machine);
  if (!choice.synthetic.empty()) return Topology::from_synthetic(choice.synthetic);
  if (!choice.xml.empty()) return Topology::from_xml_file(choice.xml);
  return load_this_system_to_reserve(reserve);
}

std::string format_launcher_lines(const LauncherLines& lines, int nodes) {
  const std::string_view plural = nodes == 1 ? "" : "s";
  std::string s = fmt::format("Open MPI 4.1, {} node{}:\n  {}\n", nodes, plural, lines.mpirun);
  s += fmt::format("Slurm, {} node{}:\n  {}\n", nodes, plural, lines.srun);
  if (!lines.notes.empty()) {
    s += "notes:\n";
    for (const std::string& note : lines.notes) s += fmt::format("  - {}\n", note);
  }
  return s;
}

}  // namespace wave3d::app
