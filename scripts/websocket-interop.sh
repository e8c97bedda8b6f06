#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# WebSocket interop (RFC 6455, permessage-deflate RFC 7692, over HTTP/2 RFC 8441) of every Spindle
# server strategy, with independent client stacks against the benchmark app's GET /ws/echo: Python's
# `websockets` (scripts/lib/ws_interop.py), Node's `ws` (scripts/lib/ws_interop.mjs), and Python's
# `h2` over h2c with frames of our own (scripts/lib/ws_h2_interop.py: two sockets on one connection,
# text, 200 KB binary past the windows, ping, close ending the stream, a GET after). A CI step.
#
#   scripts/websocket-interop.sh [--servers A,B] [--quick] [--skip-node] [output_dir]
#
#   --servers A,B  main classes to run (default: every Spindle server of the benchmark matrix,
#                  scripts/lib/bench-servers.sh, whose class lives in the launchers module)
#   --quick        VirtualThreadServer and MultiLoopServer only (a local check)
#   --skip-node    run without the Node client (its lines say SKIPPED); without this flag a Node
#                  client that cannot be installed (no npm registry) fails the run, saying why
#   output_dir     the servers' and clients' logs; default a temporary directory
#
# Each server starts on a free 127.0.0.1 port (`java -cp <cp> <MainClass> 0 2`) and each client
# runs once against it, for at most 30 s: text messages (empty, ASCII, multi-byte UTF-8, 64 KiB)
# and binary ones (0, 125, 126, 65536 bytes, 1 MiB) echoed exactly, permessage-deflate agreed on, a
# ping answered by its pong, a close with 1000 answered with 1000 and the TCP connection then ended
# by the server, and a text frame of invalid UTF-8 closed with 1007. Then the server must still be
# running, and is stopped (SIGTERM).
#
# Installs what is missing: Debian python3-websockets and python3-h2 (and nodejs/npm if absent), and `ws@8` by
# npm into target/websocket-interop/node (reused by later runs). Prints one line per server and
# client, PASS/FAIL/SKIPPED, with a failing client's output after it.
# Exit status: 0 every client passed on every server; 1 something failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"

usage() {
  echo "usage: $(basename "$0") [--servers A,B] [--quick] [--skip-node] [output_dir]   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }

CLIENT_TIMEOUT=30
READY_TIMEOUT=60
NODE_DIR="$SPINDLE_ROOT/target/websocket-interop/node"
servers="" quick=0 skip_node=0 out=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --servers) need_value "$@"; servers="$2"; shift ;;
    --quick) quick=1 ;;
    --skip-node) skip_node=1 ;;
    -*) echo "error: unknown option $1" >&2; usage ;;
    *) [[ -z "$out" ]] || usage; out="$1" ;;
  esac
  shift
done

spindle_find_jdk
spindle_java_opts

# The launchers' classes among the matrix's rows, in its order, each once (a row's variants are
# configuration; the WebSocket path is the same).
names=()
if [[ -n "$servers" ]]; then
  IFS=, read -r -a names <<<"$servers"
elif (( quick )); then
  names=(VirtualThreadServer MultiLoopServer)
else
  declare -A seen=()
  for row in "${SPINDLE_BENCH_SERVERS[@]}"; do
    IFS='|' read -r _ class _ <<<"$row"
    [[ -z "${seen[$class]:-}" && -f "$SPINDLE_ROOT/launchers/src/main/java/dev/spindle/launch/$class.java" ]] || continue
    seen[$class]=1
    names+=("$class")
  done
fi
(( ${#names[@]} > 0 )) || { echo "error: no servers to run" >&2; usage; }
fqcns=()
for name in "${names[@]}"; do
  found="$(spindle_find_server "$name")"   # exits 2 with the list of servers if unknown
  [[ "${found%% *}" == launchers ]] || { echo "error: $name is not a Spindle launcher (module ${found%% *}): only they serve /ws/echo" >&2; exit 2; }
  fqcns+=("${found#* }")
done

# Debian's python3 by its path: the first python3 on PATH may be another installation (pyenv) that
# cannot see Debian's packages.
spindle_ensure_packages python3 python3-websockets python3-h2
PYTHON=/usr/bin/python3
"$PYTHON" -c 'import websockets, h2' 2>/dev/null ||
  spindle_die "$PYTHON cannot import websockets and h2 although python3-websockets and python3-h2 are installed"

node_ready=0 node_why=""
install_node_ws() {
  command -v node >/dev/null 2>&1 || spindle_ensure_packages nodejs
  command -v npm >/dev/null 2>&1 || spindle_ensure_packages npm
  [[ -f "$NODE_DIR/node_modules/ws/package.json" ]] && return 0
  mkdir -p "$NODE_DIR"
  echo "installing the ws package (npm) into $NODE_DIR ..." >&2
  local log="$NODE_DIR/npm-install.log"
  if ! timeout 120 npm install --prefix "$NODE_DIR" --no-audit --no-fund --no-save ws@8 >"$log" 2>&1; then
    node_why="npm could not install ws@8 (is the npm registry, $(npm config get registry 2>/dev/null || echo '?'), reachable?): $(tail -n 3 "$log" | tr '\n' ' ')"
    return 1
  fi
}
if (( skip_node )); then
  node_why="--skip-node"
elif install_node_ws; then
  node_ready=1
else
  echo "error: $node_why" >&2
  echo "error: rerun with --skip-node to run the Python client alone" >&2
  exit 1
fi

cp="$(spindle_classpath launchers)"
out="${out:-$(mktemp -d "${TMPDIR:-/tmp}/spindle-websocket-interop-XXXXXX")}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
# what the JVMs load, copied, so a build in this tree during the run cannot change it
cp="$(spindle_snapshot_cp "$cp" "$out/classpath")"

server_pid=""
cleanup() { spindle_stop_pid "$server_pid" 10; server_pid=""; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failures=0
line() { printf '%-8s %-28s %s\n' "$1" "$2" "$3"; }
# Runs one client, bounded; prints its line, and its output when it failed.
run_client() {
  local server="$1" client="$2" log="$3" rc=0 seconds
  shift 3
  seconds=$SECONDS
  timeout -k 5 "$CLIENT_TIMEOUT" "$@" >"$log" 2>&1 || rc=$?
  seconds=$(( SECONDS - seconds ))
  if (( rc == 0 )); then
    line PASS "$server" "$client ($(grep -c '^  ok ' "$log") cases, ${seconds} s)"
  else
    failures=$(( failures + 1 ))
    local why="exit status $rc"
    (( rc == 124 || rc == 137 )) && why="not done within ${CLIENT_TIMEOUT} s"
    line FAIL "$server" "$client ($why; $(grep -c '^  FAIL ' "$log") failed cases; log $log)"
    sed 's/^/    /' "$log"
  fi
}

echo "WebSocket interop: ${#names[@]} server(s), logs in $out" >&2
for i in "${!names[@]}"; do
  name="${names[$i]}" dir="$out/${names[$i]}"
  mkdir -p "$dir"
  "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" -cp "$cp" "${fqcns[$i]}" 0 2 >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  if ! port="$(spindle_await_ready "$server_pid" "$dir/server.out" "$dir/server.err" "$READY_TIMEOUT" 2>"$dir/launch-error.txt")"; then
    failures=$(( failures + 1 ))
    line FAIL "$name" "did not start (see $dir/launch-error.txt)"
    cleanup
    continue
  fi
  run_client "$name" python "$dir/python.log" "$PYTHON" "$SPINDLE_ROOT/scripts/lib/ws_interop.py" "$port"
  run_client "$name" python-h2 "$dir/python-h2.log" "$PYTHON" "$SPINDLE_ROOT/scripts/lib/ws_h2_interop.py" "$port"
  if (( node_ready )); then
    run_client "$name" node "$dir/node.log" env NODE_PATH="$NODE_DIR/node_modules" node "$SPINDLE_ROOT/scripts/lib/ws_interop.mjs" "$port"
  else
    line SKIPPED "$name" "node ($node_why)"
  fi
  if ! spindle_pid_alive "$server_pid"; then
    failures=$(( failures + 1 ))
    line FAIL "$name" "the server exited during the clients' runs (see $dir/server.err)"
  fi
  cleanup
done

if (( failures )); then
  echo "WebSocket interop: $failures failure(s); logs in $out" >&2
  exit 1
fi
echo "WebSocket interop: every client passed on every server" >&2
