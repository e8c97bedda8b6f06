#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and tests the whole reactor (the reference servers under references/ included), then installs the artifacts into the local Maven
# repository (~/.m2), so an application can depend on dev.spindle:spindle-*:0.1.0-SNAPSHOT:
#   scripts/test.sh [extra mvn args]
# This is what CI runs (.ci/run); it installs what the tests need on a clean machine.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Debian packages the test suites need; modules add theirs here, in one place
# (liburing2 for io_uring, liburing-dev and gcc for its struct layout test, curl and python3-requests
# for the multipart uploads of the conformance suite's real clients).
TEST_PACKAGES=(curl gcc liburing2 liburing-dev nghttp2-client python3-requests)

spindle_ensure_packages "${TEST_PACKAGES[@]}"
spindle_find_jdk
cd "$SPINDLE_ROOT"
# The scripts' own Python (the matrix report, the hostile-memory verdicts) has unit tests of its own.
spindle_python
"$SPINDLE_PYTHON" -m unittest discover -s scripts/lib -p 'test_*.py'
# Every benchmark figure quoted in prose (docs/claims.tsv), recomputed from its run's raw/ (seconds): a figure
# edited by hand, or a cited run or raw archive that is missing, fails here (docs/benchmarks.md, "Quoting a figure").
"$SPINDLE_PYTHON" scripts/lib/claims.py || spindle_die "a quoted benchmark figure does not match its run's raw data (see above)"
# Two modules at a time (-T): after core, benchmark-app and conformance, the server modules and the
# references depend only on those (the docs module, last, on every strategy),
# and their tests mostly wait on sockets and timers, so two lanes halve the wall clock on 2 cores.
# Every test port is ephemeral.
# SPINDLE_MVN_THREADS=1 builds one module at a time.
# On a failure, the failing tests are named last, where a CI log's tail shows them.
if ! spindle_mvn -T "${SPINDLE_MVN_THREADS:-2}" install "$@"; then
  "$SPINDLE_PYTHON" scripts/lib/failed_tests.py "$SPINDLE_ROOT" || true
  spindle_die "the build failed (the failing tests, if any, are named above)"
fi

# The layers, on the built classes (jdeps, seconds): the strategy contract (dev.spindle.core.spi)
# used only by the strategy modules, the benchmark app on core's API alone; the rules are at the top
# of check-layers.sh.
scripts/check-layers.sh

# The public API is documented: javadoc with every doclint check on each module's package; any
# warning fails. (dev.spindle.iouring.ffi is left out: jextract generates it, into src/generated/java,
# which is on the source path only so that the documented packages resolve against it.)
# (The conformance module is test support, JUnit tests and their helpers, not API: it is left out too.)
DOC_PACKAGES=(core:dev.spindle.core core:dev.spindle.core.spi benchmark-app:dev.spindle.benchmark
  blocking-server:dev.spindle.blocking nio-servers:dev.spindle.nio iouring-server:dev.spindle.iouring
  netty-server:dev.spindle.netty)
DOC_PACKAGES+=(opentelemetry:dev.spindle.opentelemetry micrometer:dev.spindle.micrometer compression-zstd:dev.spindle.compression.zstd)
# Each module's target/classpath.txt (runtime scope, a superset of compile) is written by the build
# above (the build-classpath execution in pom.xml). The javadoc runs are independent: two at a time.
javadoc_package() {
  local module="$1" package="$2" deps path sources
  deps="$(tr -d '\r\n' <"$module/target/classpath.txt")"
  # a named module (module-info.java) gets its dependencies on the module path
  if [[ -f "$module/src/main/java/module-info.java" ]]; then path=(--module-path "$deps"); else path=(-cp "core/target/classes:$deps"); fi
  sources="$module/src/main/java"
  if [[ -d "$module/src/generated/java" ]]; then sources+=":$module/src/generated/java"; fi
  "$JAVA_HOME/bin/javadoc" -Xdoclint:all -Werror -quiet -d "$module/target/doclint/$package" "${path[@]}" \
    -sourcepath "$sources" "$package" >"$module/target/doclint-$package.log" 2>&1
}
javadoc_failed=()
pids=() names=()
for entry in "${DOC_PACKAGES[@]}"; do
  javadoc_package "${entry%%:*}" "${entry#*:}" &
  pids+=($!) names+=("$entry")
  if (( ${#pids[@]} == 2 )) || [[ "$entry" == "${DOC_PACKAGES[-1]}" ]]; then
    for i in "${!pids[@]}"; do
      module="${names[$i]%%:*}" package="${names[$i]#*:}"
      if ! wait "${pids[$i]}"; then
        cat "$module/target/doclint-$package.log" >&2
        javadoc_failed+=("$package")
      fi
    done
    pids=() names=()
  fi
done
(( ${#javadoc_failed[@]} == 0 )) || spindle_die "javadoc -Xdoclint:all found problems in ${javadoc_failed[*]} (see above)"

# The reference servers stay apart: no module of Spindle's may depend on one (netty-server is
# itself the Netty reference: it alone may use references/support, and nothing may use it).
ref_users="$(grep -l '<artifactId>spindle-ref-\|<artifactId>spindle-netty-server</artifactId>' ./*/pom.xml 2>/dev/null |
  grep -v '^\./netty-server/' || true)"
[[ -z "$ref_users" ]] ||
  spindle_die "a Spindle module depends on a reference server (references/ and netty-server are never a dependency): $ref_users"

# The library jars must carry no logging configuration (an application brings its own).
for jar in */target/spindle-*.jar; do
  [[ "$jar" == *-tests.jar ]] && continue
  if "$JAVA_HOME/bin/jar" tf "$jar" | grep -qx 'logback.xml'; then
    spindle_die "$jar contains logback.xml: library jars must not configure logging"
  fi
done
