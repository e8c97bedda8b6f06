#!/usr/bin/env bash
# Builds and tests the whole reactor: scripts/test.sh [extra mvn args]
# This is what CI runs (.ci/run); it installs what the tests need on a clean machine.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Debian packages the test suites need; modules add theirs here, in one place
# (e.g. liburing2 for the io_uring tests).
TEST_PACKAGES=(curl)

spindle_ensure_packages "${TEST_PACKAGES[@]}"
spindle_find_jdk
cd "$SPINDLE_ROOT"
spindle_mvn verify "$@"
