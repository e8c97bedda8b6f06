#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI's check of `benchmark-servers.sh --target`: a server in one network namespace stands for a
# second machine, the matrix runs in another against its address, and the run must have measured
# that row, judged its correctness and recorded where client and target were. A few seconds.
#
#   scripts/remote-target-smoke.sh [output_dir]
#
# Needs root (network namespaces); exit 0 when the run is as described, 1 otherwise.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/netns.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/netns.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

out="${1:-${TMPDIR:-/tmp}/spindle-target-smoke-$(date -u +%Y-%m-%dT%H-%M-%SZ)}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
spindle_find_jdk
spindle_java_opts
found="$(spindle_find_server MultiLoopServer)"
cp="$(spindle_classpath "${found%% *}")"

server_pid=""
cleanup() {
  spindle_stop_pid "$server_pid" 10
  spindle_netns_remove
}
trap cleanup EXIT

spindle_netns_pair target
ip netns exec "$SPINDLE_NETNS_SERVER" "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" -Dspindle.host="$SPINDLE_NETNS_SERVER_ADDR" \
  -cp "$cp" "${found#* }" 0 2 >"$out/server.out" 2>"$out/server.err" &
server_pid=$!
port="$(spindle_await_ready "$server_pid" "$out/server.out" "$out/server.err" 60)"
target="$SPINDLE_NETNS_SERVER_ADDR:$port"
echo "target: MultiLoopServer at $target in namespace $SPINDLE_NETNS_SERVER; the matrix runs in $SPINDLE_NETNS_CLIENT" >&2

ip netns exec "$SPINDLE_NETNS_CLIENT" "$SCRIPTS/benchmark-servers.sh" --quick --target "$target" --name MultiLoopServer-elsewhere \
  --scenarios plaintext-c256,delay100-c50,remote100-c50 2 2 "$out/run"

fail() { echo "FAILED: $*" >&2; exit 1; }
spindle_pid_alive "$server_pid" || fail "the target server did not survive the run"
grep -q "^| MultiLoopServer-elsewhere | [0-9]*/[0-9]* |" "$out/run/summary.md" || fail "no row with a correctness figure in $out/run/summary.md"
awk -F '\t' '$2 == "MultiLoopServer-elsewhere" && $3 == "plaintext-c256" { found = 1 } END { exit !found }' "$out/run/measurements.tsv" ||
  fail "plaintext-c256 was not measured"
! awk -F '\t' '$3 == "remote100-c50" { found = 1 } END { exit !found }' "$out/run/measurements.tsv" ||
  fail "remote100-c50 needs a downstream the script cannot give the target, yet it was measured"
awk -F '\t' '$2 == "MultiLoopServer-elsewhere" && $5 != "-" { bad = 1 } END { exit bad }' "$out/run/measurements.tsv" ||
  fail "a server CPU figure was recorded for a server this script did not start"
grep -q "remote target: $target" "$out/run/summary.md" || fail "summary.md does not say where the target was"
grep -q "^| client host |" "$out/run/environment.md" || fail "environment.md does not say where the client was"
echo "remote-target smoke run: OK ($out/run/summary.md)" >&2
