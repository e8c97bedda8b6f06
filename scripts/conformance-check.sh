#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shared conformance suite, black-box, against a server that is already running: the
# correctness column of the benchmark matrix, for Spindle's rows and the references alike.
#
#   scripts/conformance-check.sh [--tls] [--h2] HOST:PORT OUT_FILE
#   scripts/conformance-check.sh --prepare     (only builds: before checks that run without a network)
#
#   --tls      the server speaks HTTPS (any certificate is accepted: the check judges HTTP)
#   --h2       the server speaks HTTP/2 too (h2c with prior knowledge; with --tls, h2 by ALPN): the
#              HTTP/2 sections run (without it they are skipped, saying the target does not speak it)
#   HOST:PORT  where it listens ([v6 address]:PORT for IPv6); it must serve the benchmark app's routes
#   OUT_FILE   written as TSV: a header "case<TAB>status<TAB>message<TAB>rule", then one line per case of
#              dev.spindle.conformance.NetworkConformanceSuite; status passed, failed or skipped;
#              message on one line: the failure's, or why the case was skipped; rule rfc9112 (every
#              assertion of the case is an RFC 9110/9112 requirement: the case's method is tagged
#              @Tag(HttpConformanceSuite.RFC9112), the section named beside it) or contract (Spindle's
#              stricter contract: limits, timeouts, status choices the RFC leaves open, an HTTP/1.1
#              status line where HTTP/1.0 is valid too, the benchmark app's routes)
#
# The server is held to the whole contract on the benchmark app's routes, with no deviations
# declared. Skipped, each with its reason: cases that need a router of their own, configured
# timeouts or a connection limit, cases that start a server of their own, the TLS-only cases in a
# plain run, and the 2,300-connection starvation case. A healthy server takes about 5 s.
#
# Prints the failed cases and a count, then as its last line passed/total (total = passed + failed;
# skips are counted apart). Exit status: 0 every case run passed, 1 some failed, 2 it could not run
# (bad arguments, build failure, target unreachable, or the hard time limit was hit).
#
# Builds the conformance module (and core and benchmark-app, which it runs on) first when its
# classes are missing or older than the sources (no install: those modules' target/ only).
# Env: SPINDLE_CONFORMANCE_BUDGET (seconds; default 60): cases not started by then are skipped,
# saying so; the JVM is killed 90 s after the budget (a case ends by its own timeouts, at most 60 s).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  echo "usage: $(basename "$0") [--tls] [--h2] HOST:PORT OUT_FILE   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }

tls=() h2=() prepare=0
positional=()
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --tls) tls=(--tls) ;;
    --h2) h2=(--h2) ;;
    --prepare) prepare=1 ;;
    -*) echo "error: unknown option $1" >&2; usage ;;
    *) positional+=("$1") ;;
  esac
  shift
done
if (( prepare )); then
  (( ${#positional[@]} == 0 )) || usage
  positional=(127.0.0.1:1 "${TMPDIR:-/tmp}/unused")
fi
(( ${#positional[@]} == 2 )) || usage
target="${positional[0]}" out_file="${positional[1]}"
[[ "$target" =~ ^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$ ]] && (( 10#${BASH_REMATCH[2]} >= 1 && 10#${BASH_REMATCH[2]} <= 65535 )) ||
  { echo "error: the target must be HOST:PORT, not '$target'" >&2; usage; }
budget="${SPINDLE_CONFORMANCE_BUDGET:-60}"
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || { echo "error: SPINDLE_CONFORMANCE_BUDGET must be a positive whole number of seconds" >&2; usage; }
out_dir="$(dirname "$out_file")"
(( prepare )) || mkdir -p "$out_dir" 2>/dev/null && [[ -w "$out_dir" ]] || { echo "error: cannot write into $out_dir" >&2; exit 2; }
out_file="$(cd "$out_dir" && pwd -P)/$(basename "$out_file")"   # the script works from the repository root

cd "$SPINDLE_ROOT"
spindle_find_jdk

# The conformance module's classes and their runtime classpath (core's jars and JUnit's launcher
# included), rebuilt when a source, a pom or a listed jar is newer or gone; the classpath file, which
# the build writes (the build-classpath execution in pom.xml), doubles as the stamp.
CLASSPATH_FILE="conformance/target/classpath.txt"
suite_stale() {
  [[ -d conformance/target/classes && -f "$CLASSPATH_FILE" ]] || return 0
  local entry entries
  IFS=: read -r -a entries <"$CLASSPATH_FILE" || true
  for entry in "${entries[@]}"; do
    [[ -e "$entry" ]] || return 0
  done
  [[ -n "$(find pom.xml core/pom.xml core/src benchmark-app/pom.xml benchmark-app/src conformance/pom.xml conformance/src -type f -newer "$CLASSPATH_FILE" -print -quit)" ]]
}
if suite_stale; then
  echo "building the conformance suite ..." >&2
  _spindle_mvn_quiet -pl conformance -am -DskipTests package >&2 ||
    { echo "error: building the conformance suite failed (rerun with SPINDLE_VERBOSE=1 for Maven's output)" >&2; exit 2; }
  touch "$CLASSPATH_FILE"   # build-classpath leaves an unchanged file alone
fi
(( ! prepare )) || exit 0
cp="conformance/target/classes:$(tr -d '\r\n' <"$CLASSPATH_FILE")"

rc=0
timeout --kill-after=10 "$(( budget + 90 ))" "$JAVA_HOME/bin/java" -Xmx512m -Dspindle.conformance.budgetSeconds="$budget" \
  -cp "$cp" dev.spindle.conformance.ConformanceCheck "${tls[@]}" "${h2[@]}" "$target" "$out_file" || rc=$?
case "$rc" in
  0 | 1 | 2) exit "$rc" ;;
  124 | 137) echo "error: the check of $target did not finish within $(( budget + 90 )) s" >&2; exit 2 ;;
  *) echo "error: the check of $target ended with status $rc" >&2; exit 2 ;;
esac
