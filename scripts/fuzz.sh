#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Coverage-guided fuzzing of the core's parser and connection with Jazzer (issue #7).
#
#   scripts/fuzz.sh [minutes] [test]
#     minutes  total fuzzing time, split evenly across the tests (default 10)
#     test     one class (RequestParserFuzzTest) or method (RequestParserFuzzTest#splittingDoesNotChangeWhatIsParsed);
#              default: every @FuzzTest under core/src/test/java/dev/spindle/core/fuzz
#
# Jazzer fuzzes one test per JVM, so each test gets its own Maven run (about half a minute of
# start-up and corpus replay on top of its share of the time). Where things land:
#   core/.cifuzz-corpus/<class>/<method>/      inputs that found new coverage (git-ignored; the
#                                              next fuzz run starts from them and the seeds)
#   core/src/test/resources/dev/spindle/core/fuzz/<Class>Inputs/<method>/crash-<sha1>
#                                              an input that failed: commit it with the fix and
#                                              every build replays it
#   core/target/fuzz/<class>#<method>.log      the full log; .coverage.txt beside it: Jazzer's
#                                              branch and line coverage per source file
# Prints executions, coverage and corpus growth per test; exits 1 if any test found something.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

minutes="${1:-10}"
only="${2:-}"
[[ "$minutes" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [minutes] [Class|Class#method]" >&2; exit 2; }

FUZZ_SOURCES="core/src/test/java/dev/spindle/core/fuzz"
FUZZ_PACKAGE="dev.spindle.core.fuzz"
# Only the core's own classes count as coverage, not the fuzz harness around them.
INSTRUMENT="dev.spindle.core.*"
COVERED_FILES=(RequestParser.java Connection.java InputBuffer.java OutputBuffer.java)

cd "$SPINDLE_ROOT"
spindle_find_jdk

# Class#method for every @FuzzTest: the first method declared after the annotation.
mapfile -t all_tests < <(
  for f in "$FUZZ_SOURCES"/*FuzzTest.java; do
    awk -v cls="$(basename "$f" .java)" '
      /@FuzzTest/ { pending = 1; next }
      pending && match($0, /void [A-Za-z0-9_]+\(/) {
        print cls "#" substr($0, RSTART + 5, RLENGTH - 6); pending = 0
      }' "$f"
  done
)
tests=()
for t in "${all_tests[@]}"; do
  if [[ -z "$only" || "$t" == "$only" || "${t%%#*}" == "$only" ]]; then
    tests+=("$t")
  fi
done
if (( ${#tests[@]} == 0 )); then
  echo "error: no fuzz test matches '${only}'; there are:" >&2
  printf '  %s\n' "${all_tests[@]}" >&2
  exit 2
fi
seconds=$(( minutes * 60 / ${#tests[@]} ))
(( seconds >= 10 )) || spindle_die "${minutes} min for ${#tests[@]} tests leaves under 10 s each"

echo "fuzzing ${#tests[@]} test(s), ${seconds} s each, JDK at $JAVA_HOME" >&2
echo "building core's test classes ..." >&2
spindle_mvn -q -pl core test-compile >&2

log_dir="core/target/fuzz"
mkdir -p "$log_dir"

corpus_files() {
  local dir="core/.cifuzz-corpus/$FUZZ_PACKAGE.$1"
  if [[ -d "$dir" ]]; then
    find "$dir" -type f | wc -l
  else
    echo 0
  fi
}

# "hit/total" branches of one source file from Jazzer's coverage report, or "-".
branches() {
  local report="$1" file="$2"
  [[ -f "$report" ]] || { echo "-"; return; }
  awk -v f="$file:" '/^Branch coverage:/ { on = 1; next } /^$/ { on = 0 } on && $1 == f { print $2 " " $3; exit }' "$report"
}

summary=()
failed=0
i=0
for t in "${tests[@]}"; do
  i=$(( i + 1 ))
  cls="${t%%#*}"
  method="${t#*#}"
  log="$log_dir/$t.log"
  coverage="$log_dir/$t.coverage.txt"
  rm -f "$coverage"
  before="$(corpus_files "$cls/$method")"
  echo "[$i/${#tests[@]}] $t for ${seconds} s (log: $log)" >&2
  rc=0
  JAZZER_FUZZ=1 JAZZER_MAX_DURATION="${seconds}s" JAZZER_INSTRUMENT="$INSTRUMENT" \
    JAZZER_COVERAGE_REPORT="$SPINDLE_ROOT/$coverage" \
    spindle_mvn -pl core test -Dtest="$FUZZ_PACKAGE.$t" -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1 || rc=$?
  after="$(corpus_files "$cls/$method")"

  # libFuzzer's last words: "Done <runs> runs in <s> second(s)", and the last status line.
  runs="$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
  secs="$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)"
  status_line="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$status_line")"
  ft="$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<<"$status_line")"
  mapfile -t crashes < <(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")

  verdict="ok"
  if (( ${#crashes[@]} > 0 )); then
    verdict="FINDING: ${crashes[*]}"
    failed=1
  elif [[ -z "$runs" ]]; then
    verdict="FAILED before fuzzing (maven exit $rc; see $log)"
    failed=1
  elif (( rc != 0 )); then
    verdict="FAILED (maven exit $rc; see $log)"
    failed=1
  fi
  rate="-"
  if [[ -n "$runs" && -n "$secs" && "$secs" -gt 0 ]]; then
    rate=$(( runs / secs ))
  fi
  line="$t: ${runs:-0} executions in ${secs:-0} s (${rate}/s), cov ${cov:--} edges, ft ${ft:--} features, corpus ${before} -> ${after} files"
  for f in "${COVERED_FILES[@]}"; do
    b="$(branches "$coverage" "$f")"
    # Files a test never reaches (0/N) would only be noise.
    [[ "$b" =~ ^[1-9] ]] && line+=", $f branches $b"
  done
  line+="; $verdict"
  summary+=("$line")
  echo "  $line" >&2
done

echo
echo "Fuzzing summary (${minutes} min, ${seconds} s per test; crash files, if any, are under core/src/test/resources/dev/spindle/core/fuzz):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
