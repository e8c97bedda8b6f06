#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The experiments of the five documents Spindle grew from (../shared/sources/, its README says
# which is which), reproduced as they ran them, with their published figures beside ours:
#   000 Spring WebFlux on Reactor Netty (io_uring): three `ab -n 60000 -c 1000` benchmarks
#   001 a hand-rolled routing server: one thread against a pool, static and path-variable routes
#   002 an event system's payload sweep (72 B to 500 KB, one-way and two-way)
#   003 Spring Boot MVC on Tomcat, 10 threads against virtual threads, a 2 s remote call
#   004 a ranking of ten hand-rolled Java servers (wrk, 1,000 connections, POST)
# Each document is a part, scripts/lib/sources/doc<NNN>-<slug>.sh <part_out_dir> <quick 0|1>,
# which runs its servers and load, and writes <output_dir>/<NNN>/section.md and raw/.
#
#   scripts/reproduce-sources.sh [--quick] [--docs 000,001,002,003,004] [output_dir]
#
# output_dir defaults to results/seed/<UTC timestamp>/ (--quick: /tmp/spindle-seed-quick-<stamp>/).
# It gets environment.md (machine, JDK, tools, commit, this command), one directory per document,
# and README.md: a short introduction and each part's section.md in document order. --quick runs
# every part as a smoke run of about a minute (CI); --docs runs only the named documents.
# Exit status: 0 every part measured; 1 a part failed or is missing (README.md says which); 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ALL_DOCS="000,001,002,003,004"

usage() {
  echo "usage: $(basename "$0") [--quick] [--docs 000,001,002,003,004] [output_dir]" >&2
  exit 2
}
cmdline="$*"
quick=0 out="" docs="$ALL_DOCS"
while (( $# > 0 )); do
  case "$1" in
    --quick) quick=1 ;;
    --docs) [[ $# -ge 2 && "$2" =~ ^[0-9]{3}(,[0-9]{3})*$ ]] || usage; docs="$2"; shift ;;
    -h|--help) spindle_script_help "${BASH_SOURCE[0]}" ;;
    -*) usage ;;
    *) [[ -z "$out" ]] || usage; out="$1" ;;
  esac
  shift
done
IFS=, read -r -a chosen <<<"$docs"
for doc in "${chosen[@]}"; do
  [[ ",$ALL_DOCS," == *",$doc,"* ]] || { echo "error: no source document $doc (documents: $ALL_DOCS)" >&2; usage; }
done
# in document order, whatever order --docs named them in
mapfile -t chosen < <(printf '%s\n' "${chosen[@]}" | sort -u)

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
if (( quick )); then
  out="${out:-${TMPDIR:-/tmp}/spindle-seed-quick-$stamp}"
  part_limit=300
else
  out="${out:-$SPINDLE_ROOT/results/seed/$stamp}"
  part_limit=1800
fi
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"

spindle_ensure_packages apache2-utils
spindle_find_jdk
spindle_java_opts
{
  echo "# Environment of source reproduction $stamp"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`scripts/reproduce-sources.sh $cmdline\` |"
  echo "| commit | $(spindle_git_desc) |"
  echo "| machine | $(hostname) |"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); $(nproc) CPU(s) |"
  echo "| memory | $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) |"
  echo "| kernel | $(uname -sr) |"
  echo "| JDK | $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1) ($JAVA_HOME) |"
  echo "| JVM flags (default; a part that sets others says so in its section) | \`${SPINDLE_JVM_FLAGS[*]}\` |"
  echo "| ab | $(ab -V 2>/dev/null | head -n 1) |"
  echo "| wrk | $(if command -v wrk >/dev/null; then wrk -v 2>&1 | head -n 1; else echo "not installed (a part that needs it installs it)"; fi) |"
  echo "| open files | soft $(ulimit -Sn), hard $(ulimit -Hn) |"
  echo "| client and server | the same machine, over 127.0.0.1 |"
} >"$out/environment.md"

declare -A part_state=()
failed=0
for doc in "${chosen[@]}"; do
  parts=("$SCRIPTS"/lib/sources/doc"$doc"-*.sh)
  if [[ ! -x "${parts[0]}" ]]; then
    echo "[$doc] part missing: no executable scripts/lib/sources/doc$doc-*.sh" >&2
    part_state[$doc]="part missing (no scripts/lib/sources/doc$doc-*.sh)"
    failed=1
    continue
  fi
  part="${parts[0]}"
  echo "[$doc] $(basename "$part") → $out/$doc" >&2
  mkdir -p "$out/$doc"
  begin=$SECONDS rc=0
  # a time limit so a hung part cannot hold the run; the part's own traps stop its servers on SIGTERM
  timeout --kill-after=30 "$part_limit" "$part" "$out/$doc" "$quick" || rc=$?
  took=$(( SECONDS - begin ))
  if (( rc == 0 )) && [[ -s "$out/$doc/section.md" ]]; then
    part_state[$doc]="measured in ${took} s"
  else
    failed=1
    if (( rc == 124 || rc == 137 )); then
      part_state[$doc]="failed: stopped after the ${part_limit} s limit"
    elif (( rc == 0 )); then
      part_state[$doc]="failed: it wrote no section.md"
    else
      part_state[$doc]="failed (exit $rc after ${took} s)"
    fi
  fi
  echo "[$doc] ${part_state[$doc]}" >&2
done

{
  echo "# The source documents' experiments, reproduced"
  echo
  if (( quick )); then
    echo "**Smoke run (\`--quick\`): every part shrunk to about a minute; the figures check the mechanics only.**"
    echo
  fi
  echo "Each section below reproduces one of the documents Spindle grew from (\`../shared/sources/\` in the"
  echo "project's workspace): what the document ran, quoted; what we ran, with the exact commands and any scaling;"
  echo "its published figures beside ours; and what carries over between machines. Client and servers share this"
  echo "machine ([environment.md](environment.md)); every raw output is under \`<document>/raw/\`, which a run under"
  echo "\`results/\` keeps packed as \`<document>/raw.tar.gz\` (\`python3 scripts/lib/raw_archive.py unpack <document>\` restores it)."
  echo
  echo "| document | part |"
  echo "|---|---|"
  for doc in "${chosen[@]}"; do
    echo "| $doc | ${part_state[$doc]} |"
  done
  for doc in "${chosen[@]}"; do
    echo
    if [[ -s "$out/$doc/section.md" ]]; then
      cat "$out/$doc/section.md"
    else
      echo "## $doc"
      echo
      echo "Not reproduced in this run: ${part_state[$doc]}."
    fi
  done
} >"$out/README.md"

spindle_pack_raw "$out"
echo "written: $out/README.md" >&2
exit "$failed"
