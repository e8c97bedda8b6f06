#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the published modules (spindle-core, the strategy modules and spindle-bom, at the
# development version, e.g. 0.1.0-SNAPSHOT) into the local Maven repository (~/.m2), without
# building or testing the reference servers, and without installing the modules that are not
# published (the benchmark app and the conformance suite are compiled, as the strategies' tests
# use them, but not installed). What an application needs to depend on Spindle from source:
#
#   scripts/install-library.sh [extra mvn args]
#
# scripts/test.sh installs everything after testing it; this is the quick way, with no tests.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && spindle_script_help "$0"
cd "$SPINDLE_ROOT"
modules="$(IFS=,; echo "${SPINDLE_PUBLISHED_MODULES[*]}")"
spindle_mvn -q -T 2 -Plibrary -pl "$modules" -am install -DskipTests "$@"
version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' core/target/flattened.pom | head -n 1)"
echo "installed into ~/.m2: ${SPINDLE_PUBLISHED_MODULES[*]} (dev.spindle:spindle-*:$version)" >&2
