#!/usr/bin/env bash
# Builds the wave3d that runs inside the NUMA guests: the same sources without -march=native. QEMU's TCG
# emulates x86-64 up to AVX2, so a binary built for a host with AVX-512 would die of SIGILL there; where
# the binary comes from does not matter to what the guests check (where pages go, where threads run).
#
#   build_guest_binary.sh SOURCE_DIR BUILD_DIR     leaves BUILD_DIR/app/wave3d
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 SOURCE_DIR BUILD_DIR" >&2; exit 2; }
source_dir=$1
build_dir=$2
# -O1: the guests run tiny functional cases, where optimisation buys nothing and costs build time (a
# quarter of it here).
cmake -S "$source_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DWAVE3D_NATIVE=OFF \
      -DWAVE3D_BUILD_TESTS=OFF -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
cmake --build "$build_dir" --target wave3d -j "$(nproc)"
