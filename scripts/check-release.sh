#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that a release of HEAD is valid, offline, as Maven Central and a user would see it:
#
#   scripts/check-release.sh [--once]
#
# 1. No stray files are tracked (*.orig, *.rej, editor backups).
# 2. The published modules of scripts/lib/common.sh are the modules whose POM deploys (maven.deploy.skip false).
# 3. scripts/release.sh runs twice, in two directories, and the two stagings are byte-identical
#    (reproducible builds; --once, what CI runs, builds one, signed, and skips the comparison). The
#    second build is signed with a throwaway GPG key made for the check, so the signing path runs too
#    (the comparison leaves the signatures out: each carries the time it was made).
# 4. scripts/lib/release_check.py: every published module staged with jar, sources and javadoc jars
#    and POM, checksums right, Central's POM metadata present, no -SNAPSHOT or unpublished dependency,
#    every class's source in the sources jar, the license in every jar.
# 5. examples/hello, a project of its own that imports the BOM and names one strategy module, builds
#    from the staged repository alone (the staged version is removed from ~/.m2 first, and nothing
#    of the reactor is on its path) and answers GET /.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && spindle_script_help "$0"
once=0
[[ "${1:-}" == --once ]] && once=1
cd "$SPINDLE_ROOT"
spindle_find_jdk
spindle_ensure_packages curl python3 gnupg

stray="$(git ls-files | grep -E '(\.orig|\.rej|\.bak|\.swp|~)$|(^|/)(\.#[^/]*|#[^/]*#|\.DS_Store)$' || true)"
[[ -z "$stray" ]] || spindle_die "stray files are tracked (remove them): $stray"

deploying=()
for pom in */pom.xml references/*/pom.xml; do
  grep -q '<maven.deploy.skip>false</maven.deploy.skip>' "$pom" && deploying+=("${pom%/pom.xml}")
done
[[ "$(printf '%s\n' "${deploying[@]}" | sort)" == "$(printf '%s\n' "${SPINDLE_PUBLISHED_MODULES[@]}" | sort)" ]] ||
  spindle_die "the modules whose POM deploys (${deploying[*]}) are not SPINDLE_PUBLISHED_MODULES (${SPINDLE_PUBLISHED_MODULES[*]}) of scripts/lib/common.sh"

staged="$SPINDLE_ROOT/target/staging-repository"
modules="$(IFS=,; echo "${SPINDLE_PUBLISHED_MODULES[*]}")"
GNUPGHOME="$(mktemp -d)"
export GNUPGHOME
gpg --batch --quiet --passphrase '' --quick-gen-key 'Spindle release check <release-check@localhost>' ed25519 sign 1d
key="$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')"
[[ -n "$key" ]] || spindle_die "no throwaway GPG key could be made for the signed build"
if (( once )); then
  echo "release build 1 of 1, signed with a throwaway key ..." >&2
  scripts/release.sh --out "$staged" -Dgpg.keyname="$key"
  signed="$staged"
  python3 scripts/lib/release_check.py "$staged" --root "$SPINDLE_ROOT" --modules "$modules" --signed
else
  echo "release build 1 of 2 ..." >&2
  scripts/release.sh --out "$staged"
  signed="$SPINDLE_ROOT/target/release/staging-again"
  echo "release build 2 of 2, in another directory, signed with a throwaway key ..." >&2
  SPINDLE_RELEASE_WORK="$SPINDLE_ROOT/target/release/build-again" scripts/release.sh --out "$signed" -Dgpg.keyname="$key"
  python3 scripts/lib/release_check.py "$staged" --root "$SPINDLE_ROOT" --modules "$modules" --compare "$signed"
  python3 scripts/lib/release_check.py "$signed" --root "$SPINDLE_ROOT" --modules "$modules" --signed
fi
jar="$(compgen -G "$signed/dev/spindle/spindle-core/*/spindle-core-*[0-9].jar" | head -n 1)"
gpg --batch --quiet --verify "$jar.asc" "$jar" 2>/dev/null ||
  spindle_die "the signature of the signed build's $jar does not verify"
rm -rf "$GNUPGHOME"
unset GNUPGHOME

version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$staged"/dev/spindle/spindle-core/*/spindle-core-*.pom | head -n 1)"
[[ -n "$version" ]] || spindle_die "no version in the staged spindle-core POM"
# The example must resolve Spindle from the staging only: a copy of this version in ~/.m2 (from an
# earlier run) would hide a broken staging.
rm -rf "$HOME"/.m2/repository/dev/spindle/*/"$version"
example="$SPINDLE_ROOT/examples/hello"
rm -rf "$example/target"
spindle_mvn -q -f "$example/pom.xml" -Dspindle.version="$version" -Dspindle.staging="file://$staged" \
  package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
cp="$(<"$example/target/classpath.txt")"
if grep -q -e "$SPINDLE_ROOT/[a-z-]*/target" <<<"$cp"; then spindle_die "the example's classpath names the reactor's build: $cp"; fi
grep -q "dev/spindle/spindle-blocking-server/$version/" <<<"$cp" ||
  spindle_die "the example's classpath has no spindle-blocking-server $version from the repository: $cp"
log="$example/target/hello.log"
"$JAVA_HOME/bin/java" -cp "$example/target/classes:$cp" example.hello.Hello 0 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/.* hello listening on \([0-9]*\)$/\1/p' "$log")"
  [[ -n "$port" ]] && break
  kill -0 "$pid" 2>/dev/null || spindle_die "examples/hello exited: $(cat "$log")"
  sleep 0.1
done
[[ -n "$port" ]] || spindle_die "examples/hello did not say it listens within 10 s: $(cat "$log")"
body="$(curl -sS --max-time 5 "http://127.0.0.1:$port/")"
[[ "$body" == "Hello from Spindle" ]] || spindle_die "examples/hello answered GET / with '$body'"
kill "$pid"
wait "$pid" 2>/dev/null || true
trap - EXIT
echo "examples/hello, built from the staged $version alone, answered GET / with '$body'" >&2
echo "release check passed" >&2
