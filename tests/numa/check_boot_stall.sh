#!/usr/bin/env bash
# A guest that does not reach its command within --boot-timeout is booted once more, and a second stall
# ends run-in-numa-guest.sh with status 125 and says so, leaving no QEMU behind. One second is too short
# for any boot, so both attempts stall here.
#   check_boot_stall.sh GUEST_SCRIPT WORK_DIR
set -uo pipefail
guest=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
output=$("$guest" --numa-nodes 2 --timeout 30 --boot-timeout 1 --rwdir "$work" -- /bin/true 2>&1)
status=$?
echo "$output"
fail() { echo "FAIL: $*"; exit 1; }
((status == 125)) || fail "exit status $status, expected 125"
grep -q "had not reached the command after 1 s (a stalled boot); booting it once more" <<<"$output" ||
  fail "no word of the first stall and the second boot"
grep -q "error: the guest stalled while booting twice" <<<"$output" || fail "no error after the second stall"
for _ in 1 2 3 4 5; do
  left=$(pgrep -f -- "--rwdir $work" || true)
  [[ -z $left ]] && break
  sleep 1
done
[[ -z $left ]] || fail "processes of the guest still running: $left"
leftover=$(find "$work" -maxdepth 1 -name '.guest-*' | head -n 3)
[[ -z $leftover ]] || fail "files of the guest left in $work: $leftover"
echo "passed"
