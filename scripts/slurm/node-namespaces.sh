#!/usr/bin/env bash
# The "nodes" of a multi-node test cluster on one machine: N network namespaces on a private bridge,
# each with its own address, so that every slurmd (and every rank it starts) sees a host of its own
# while the file system, and so the binaries and the results, stay shared.
#
#   node-namespaces.sh up DIR N    create node1..nodeN; writes DIR/nodes ("name address namespace
#                                  veth" per line) and DIR/bridge ("bridge address-of-this-host")
#   node-namespaces.sh down DIR    delete what DIR/nodes and DIR/bridge name (safe to run twice)
#
# Names derive from DIR, so clusters in different directories do not collide, and a cluster left
# behind by an interrupted run is replaced. Processes still running in a namespace keep it alive
# after `down`: stop them first (stop-local-slurm.sh does).
set -euo pipefail

die() { echo "node-namespaces: error: $*" >&2; exit 1; }
usage() { echo "usage: $0 up DIR N | down DIR" >&2; exit 2; }

(($# >= 2)) || usage
action=$1
dir=$2

down() {
  if [[ -r $dir/nodes ]]; then
    while read -r _ _ namespace veth; do
      [[ -n ${namespace:-} ]] && ip netns delete "$namespace" 2>/dev/null || true
      [[ -n ${veth:-} ]] && ip link delete "$veth" 2>/dev/null || true
    done <"$dir/nodes"
  fi
  if [[ -r $dir/bridge ]]; then
    read -r bridge _ <"$dir/bridge" || true
    [[ -n ${bridge:-} ]] && ip link delete "$bridge" 2>/dev/null || true
  fi
  rm -f "$dir/nodes" "$dir/bridge"
}

case $action in
  down) [[ -d $dir ]] && down; exit 0 ;;
  up) (($# == 3)) && [[ $3 =~ ^[0-9]+$ ]] && (($3 >= 1 && $3 <= 50)) || die "up needs a node count of 1 to 50" ;;
  *) usage ;;
esac
nodes=$3
command -v ip >/dev/null || die "'ip' is missing (package iproute2)"
[[ $(id -u) -eq 0 ]] || die "must run as root to create network namespaces"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
down

# A short tag and a /24 subnet of 10.0.0.0/8 from DIR's hash (interface names hold 15 characters).
hash=$(printf '%s' "$dir" | sha1sum | cut -c1-8)
tag=w3d${hash:0:5}
net=10.$((0x${hash:5:1} + 200)).$((0x${hash:6:2} % 250 + 1))
bridge=${tag}br
host_address=$net.1

ip link add "$bridge" type bridge
echo "$bridge $host_address" >"$dir/bridge"
ip addr add "$host_address/24" dev "$bridge"
ip link set "$bridge" up
: >"$dir/nodes"
for ((k = 1; k <= nodes; k++)); do
  namespace=$tag-node$k
  address=$net.$((10 + k))
  ip netns add "$namespace"
  echo "node$k $address $namespace ${tag}v$k" >>"$dir/nodes"
  ip link add "${tag}v$k" type veth peer name eth0 netns "$namespace"
  ip link set "${tag}v$k" master "$bridge" up
  ip -n "$namespace" addr add "$address/24" dev eth0
  ip -n "$namespace" link set eth0 up
  ip -n "$namespace" link set lo up
  # This host's other addresses (where srun and mpirun listen) are reached through the bridge.
  ip -n "$namespace" route add default via "$host_address"
done
echo "node-namespaces: $nodes node(s) on bridge $bridge, this host at $host_address"
