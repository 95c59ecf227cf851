# Topology snapshots (hwloc) and the pure placement planning built on them.
target_sources(wave3d_node PRIVATE
  topology/topology.cpp topology/machines.cpp topology/placement_request.cpp topology/reserved_cores.cpp
  topology/placement_plan.cpp topology/launcher_lines.cpp topology/plan_report.cpp topology/plan_json.cpp
  topology/placement_audit.cpp topology/placement_audit_json.cpp)
