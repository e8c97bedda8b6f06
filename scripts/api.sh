#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The published modules' public API listings (api/<artifact>.api in each module: the public and
# protected types and members of its exported packages, written by tools/api-listing/ApiListing.java).
#
#   scripts/api.sh check     builds the published modules and fails if a listing differs from the code
#   scripts/api.sh update    builds them and rewrites the listings: review the diff, commit it with the
#                            change, and say in CHANGELOG.md what users will notice
#
# Every build runs the check too (the verify phase of each published module), so an API change
# without its listing fails scripts/test.sh.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && spindle_script_help "$0"
mode="${1:-}"
[[ "$mode" == check || "$mode" == update ]] || { echo "usage: scripts/api.sh check|update" >&2; exit 2; }
cd "$SPINDLE_ROOT"
modules="$(IFS=,; echo "${SPINDLE_API_MODULES[*]}")"
# verify runs the listing step after each module's classes are compiled and packaged
spindle_mvn -q -T 2 -pl "$modules" -am verify -DskipTests -Dspindle.api.mode="$mode"
