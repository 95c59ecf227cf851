#include "topology/machines.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace wave3d {

std::span<const BuiltinMachine> builtin_machines() { return builtin_machine_table; }

const BuiltinMachine& find_builtin_machine(std::string_view name) {
  for (const BuiltinMachine& m : builtin_machines())
    if (m.name == name) return m;
  std::string known;
  for (const BuiltinMachine& m : builtin_machines()) known += fmt::format("{}{}", known.empty() ? "" : ", ", m.name);
  throw std::runtime_error(fmt::format("unknown machine \"{}\"; the built-in machines are {}", name, known));
}

Topology load_builtin_machine(std::string_view name) {
  const BuiltinMachine& machine = find_builtin_machine(name);
  Topology topo = Topology::from_synthetic(std::string(machine.synthetic));
  topo.source = fmt::format("machine {} ({})", machine.name, topo.source);
  return topo;
}

}  // namespace wave3d
