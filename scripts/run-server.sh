#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one Spindle server in the foreground, with the standard JVM flags:
#   scripts/run-server.sh <ServerName> <port> [workers]
# port 0 picks a free port; the server prints "<Name> listening on 127.0.0.1:<port>".
# Extra -Dspindle.* properties: env SPINDLE_JAVA_PROPS="-Dspindle.x=1 -Dspindle.y=2".
# JVM flags: env SPINDLE_JVM_OPTS replaces the defaults (see scripts/lib/common.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  echo "usage: $(basename "$0") <ServerName> <port> [workers]   (e.g. VirtualThreadServer 8080 2)" >&2
  exit 2
}

# Same contract as the servers themselves: wrong arguments -> usage, exit 2.
(( $# == 2 || $# == 3 )) || usage
name="$1" port="$2" workers="${3:-}"
if ! [[ "$port" =~ ^[0-9]+$ ]] || (( 10#$port > 65535 )); then usage; fi
[[ -z "$workers" || "$workers" =~ ^[1-9][0-9]*$ ]] || usage

spindle_find_jdk
found="$(spindle_find_server "$name")"   # exits 2 with the list of servers if unknown
module="${found%% *}" fqcn="${found#* }"
cp="$(spindle_classpath "$module")"
spindle_java_opts
read -r -a props <<<"${SPINDLE_JAVA_PROPS:-}"

args=("$port")
[[ -n "$workers" ]] && args+=("$workers")

# exec: the caller's PID is the JVM's, so it can be signalled and waited for directly.
exec "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "${props[@]}" -cp "$cp" "$fqcn" "${args[@]}"
