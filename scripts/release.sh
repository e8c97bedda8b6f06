#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a release of the published modules from the committed sources (HEAD, copied out of the work
# tree) and stages it in Central's repository layout (docs/releasing.md):
#
#   scripts/release.sh [--out DIR] [extra mvn args, e.g. -Drevision=0.2.0 -Dgpg.keyname=KEY]
#
# For spindle-core, the strategy modules and spindle-bom: the jar, -sources.jar and -javadoc.jar
# (javadoc with every doclint check, warnings fatal), the flattened POM and .md5/.sha1 checksums,
# at the version of .mvn/maven.config without -SNAPSHOT (-Dchangelist=; -Drevision=X overrides it),
# and .asc signatures when a GPG key is named (-Dgpg.keyname=...; skipped, and said so, without one),
# into DIR (default target/staging-repository). Nothing is
# installed into ~/.m2. The build runs in target/release/build (its own target directories, so the
# work tree's build is untouched); its tests are not run (scripts/test.sh runs them).
# Uncommitted changes are not part of a release: the script says so when there are any.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && spindle_script_help "$0"
out="$SPINDLE_ROOT/target/staging-repository"
if [[ "${1:-}" == --out ]]; then
  out="$(realpath -m "${2:?--out needs a directory}")"
  shift 2
fi
cd "$SPINDLE_ROOT"
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "note: the work tree has uncommitted changes; the release is built from HEAD ($(git rev-parse --short HEAD)) without them" >&2
fi
work="${SPINDLE_RELEASE_WORK:-$SPINDLE_ROOT/target/release/build}"
rm -rf "$work"
mkdir -p "$work"
git archive --format=tar HEAD | tar -x -C "$work"
modules="$(IFS=,; echo "${SPINDLE_PUBLISHED_MODULES[*]}")"
key=""
for arg in "$@"; do
  if [[ "$arg" == -Dgpg.keyname=* ]]; then key="${arg#-Dgpg.keyname=}"; fi
done
# -am builds what the published modules' tests need (the benchmark app, the conformance suite, core's
# test classes) without deploying it; the staged files are the published modules' alone.
(cd "$work" && spindle_mvn -q -T 2 -Prelease -Dchangelist= -pl "$modules" -am deploy -DskipTests -Dspindle.installSkip=true \
  "$@")
rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$work/target/staging-repository" "$out"
# maven-metadata.xml (with the time of the deploy in it) is the repository's to write, not part of a
# bundle; core's test-jar is the conformance suite's test support, which the reactor resolves as an
# attached artifact of core, and no release artifact (scripts/lib/release_check.py refuses one).
find "$out" \( -name 'maven-metadata.xml*' -o -name '*-tests.jar*' \) -delete
if [[ -n "$key" ]]; then
  echo "signed every staged file with GPG key $key ($(find "$out" -type f -name '*.asc' | wc -l) signatures)" >&2
else
  echo "not signed: no GPG key named (-Dgpg.keyname=KEY signs every staged file, as Central requires)" >&2
fi
echo "staged $(find "$out" -type f -name '*.jar' | wc -l) jars and $(find "$out" -type f -name '*.pom' | wc -l) POMs from $(git rev-parse --short HEAD) in $out" >&2
