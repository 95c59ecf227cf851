#include "probe/noise_result.hpp"

namespace wave3d {

CoreNoise summarise_core(const CoreProbe& probe, const HwlocTopology& topology) {
  CoreNoise c;
  c.cpu = probe.cpu;
  c.ran_on = probe.ran_on;
  c.core = topology.core_of_cpu(probe.cpu);
  c.numa_node = topology.numa_node_of_cpu(probe.cpu);
  if (probe.fwq && !probe.fwq->quantum_ns.empty()) c.fwq = summarise_fwq(probe.fwq->quantum_ns);
  if (probe.selfish && probe.selfish->elapsed_ns > 0) {
    const SelfishRaw& s = *probe.selfish;
    c.selfish = summarise_selfish(s.detours, s.reads, s.elapsed_ns, s.min_gap_ns, s.threshold_rule);
  }
  return c;
}

}  // namespace wave3d
