#!/usr/bin/env bash
# Stops a cluster started by start-local-slurm.sh DIR, by the PIDs it recorded: cancels the jobs still
# in it, ends the job step daemons (slurmstepd) that belong to it and the processes under them, then
# every node's slurmd, slurmctld and munged, and deletes the cgroups slurmd made and the nodes' network
# namespaces and bridge. A PID is signalled only while its command name is the expected one,
# so a PID reused by another process is left alone. Removes the key, sockets, state and spool; keeps
# DIR/log for a post-mortem (--remove deletes DIR entirely). Safe to run twice or on a half-started
# cluster.
#
#   stop-local-slurm.sh [--quiet] [--remove] DIR
set -uo pipefail

quiet=0
remove=0
dir=
while (($#)); do
  case $1 in
    --quiet) quiet=1; shift ;;
    --remove) remove=1; shift ;;
    -*) echo "usage: $0 [--quiet] [--remove] DIR" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || { echo "usage: $0 [--quiet] [--remove] DIR" >&2; exit 2; }
[[ -d $dir ]] || exit 0
dir=$(cd "$dir" && pwd)

say() { ((quiet)) || echo "stop-local-slurm: $*"; }

# The PID in FILE if that process is alive and is called NAME.
live_pid() {
  local file=$1 name=$2 pid
  [[ -r $file ]] || return 1
  read -r pid <"$file" || return 1
  [[ $pid =~ ^[1-9][0-9]*$ ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]] || return 1
  echo "$pid"
}

# Sends TERM, waits up to 10 s, then KILL.
end_process() {
  local pid=$1 what=$2
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || { say "stopped $what (PID $pid)"; return 0; }
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null && say "killed $what (PID $pid), it ignored SIGTERM"
}

# Every descendant of PID, children before grandchildren.
descendants() {
  local parent=$1 child
  for child in $(ps -o pid= --ppid "$parent" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

export SLURM_CONF=$dir/slurm.conf

# Jobs first, while slurmctld and slurmd can still end them properly.
if live_pid "$dir/slurmctld.pid" slurmctld >/dev/null && [[ -r $SLURM_CONF ]]; then
  jobs=$(squeue --noheader --format=%A 2>/dev/null | tr '\n' ' ')
  if [[ -n ${jobs// /} ]]; then
    say "cancelling jobs $jobs"
    # shellcheck disable=SC2086  # job ids are plain numbers
    scancel $jobs 2>/dev/null
    for _ in $(seq 50); do
      [[ -z $(squeue --noheader --format=%A 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
fi

# Step daemons that outlived their job: this cluster's slurmstepd processes keep slurmd's log open.
for proc in /proc/[0-9]*; do
  [[ $(cat "$proc/comm" 2>/dev/null) == slurmstepd ]] || continue
  if ls -l "$proc/fd" 2>/dev/null | grep -qF -- "$dir/"; then
    pid=${proc#/proc/}
    for child in $(descendants "$pid"); do kill -KILL "$child" 2>/dev/null; done
    end_process "$pid" "slurmstepd"
  fi
done

for pid_file in "$dir"/slurmd*.pid; do
  if pid=$(live_pid "$pid_file" slurmd); then end_process "$pid" "slurmd ($(basename "$pid_file" .pid))"; fi
done
if pid=$(live_pid "$dir/slurmctld.pid" slurmctld); then end_process "$pid" slurmctld; fi
if pid=$(live_pid "$dir/munge/munged.pid" munged); then end_process "$pid" munged; fi

# The cgroups slurmd made for its node (--cgroups: slurm_<node> in every v1 hierarchy), deepest first;
# a cgroup with a process still in it stays, and says so.
nodes=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' "$dir/slurm.conf" 2>/dev/null)
for node in $nodes; do
  for group in /sys/fs/cgroup/*/"slurm_$node"; do
    [[ -d $group ]] || continue
    find "$group" -depth -type d -exec rmdir {} \; 2>/dev/null
    if [[ -d $group ]]; then say "cgroup $group still has processes; left in place"; else say "removed cgroup $group"; fi
  done
done

# The nodes' network namespaces and bridge, once nothing runs in them any more.
"$(dirname "${BASH_SOURCE[0]}")/node-namespaces.sh" down "$dir"

if ((remove)); then
  rm -rf "$dir"
else
  rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/tmp" "$dir/node-tmp"
fi
exit 0
