#!/usr/bin/env bash
# Remote shell into a node of a multi-node test cluster (start-local-slurm.sh --nodes N), for Open MPI's
# rsh launcher (OMPI_MCA_plm_rsh_agent): runs the command in the node's network, host-name and mount
# namespaces, those of its slurmd, as ssh would run it on that host. This is how `mpirun --hostfile
# $PBS_NODEFILE` reaches the other nodes in the PBS tests, where a real cluster has ssh or PBS's tm.
#
#   node-rsh.sh [ssh-style options] HOST COMMAND...
#
# The cluster is the one SLURM_CONF points at (its directory holds slurmd-HOST.pid).
set -euo pipefail

die() { echo "node-rsh: error: $*" >&2; exit 255; }

# Options Open MPI may pass for ssh (-x, -o Key=Value, ...) mean nothing here.
while (($#)) && [[ $1 == -* ]]; do
  case $1 in -o|-l|-p|-i) shift 2 ;; *) shift ;; esac
done
(($# >= 2)) || die "usage: $0 HOST COMMAND..."
host=$1
shift
dir=$(dirname "${SLURM_CONF:?node-rsh needs SLURM_CONF of the test cluster}")
pid_file=$dir/slurmd-$host.pid
[[ -r $pid_file ]] || die "no node '$host' in the cluster at $dir (no $pid_file)"
read -r pid <"$pid_file"
[[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == slurmd ]] || die "slurmd of '$host' is not running"
# As ssh does: the words form one command line for the remote shell.
exec nsenter --target "$pid" --net --uts --mount -- /bin/sh -c "$*"
