#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the layers with jdeps, on the built classes: which of Spindle's packages each module's main
# code uses, and which of core's packages use which. Fails when a rule below is broken.
#
#   scripts/check-layers.sh
#
# Needs a build first (target/classes and target/classpath.txt of every module: `./mvnw verify
# -DskipTests`, or scripts/test.sh, which runs this after its build). Takes a few seconds.
# Prints core's package graph and each module's Spindle dependencies; exit status 0 when every rule
# holds, 1 when one is broken (each broken rule printed), 2 when it could not run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
[[ "${1:-}" == -h || "${1:-}" == --help ]] && spindle_script_help "$0"

# The rules, as data. A module (its directory) may use its own packages and the Spindle packages
# listed for it (bash globs); any other dev.spindle package is a broken rule. dev.spindle.core is
# the application API, dev.spindle.core.spi the strategy contract: only the strategy modules use it.
MODULE_RULES=(
  "benchmark-app    dev.spindle.core"
  "conformance      dev.spindle.core dev.spindle.benchmark dev.spindle.core.testing"
  # the published strategies: the API and the strategy contract, no application
  "blocking-server  dev.spindle.core dev.spindle.core.spi"
  "nio-servers      dev.spindle.core dev.spindle.core.spi"
  "iouring-server   dev.spindle.core dev.spindle.core.spi"
  # an optional integration: the application API alone
  "opentelemetry    dev.spindle.core"
  # the published metrics module: an ExchangeListener on the API alone
  "micrometer       dev.spindle.core"
  # the published zstd coding: a ContentEncoding on the API alone
  "compression-zstd dev.spindle.core"
  # the launchers: the benchmark app on each strategy's public server classes
  "launchers        dev.spindle.core dev.spindle.benchmark dev.spindle.blocking dev.spindle.nio dev.spindle.iouring dev.spindle.micrometer"
  # the Netty reference: Netty in its own idiom, nothing of Spindle's core
  "netty-server     dev.spindle.references.*"
)
# Every other module with main classes (the references) is an application: the API, the benchmark
# app, and the references' shared support.
DEFAULT_RULE="dev.spindle.core dev.spindle.benchmark dev.spindle.references.*"
# Dependencies between core's own packages that must not exist: "from -> to" (bash globs).
CORE_FORBIDDEN=(
  # the library knows no application and no strategy
  "dev.spindle.core* -> dev.spindle.benchmark*"
  "dev.spindle.core* -> dev.spindle.blocking*"
  "dev.spindle.core* -> dev.spindle.nio*"
  "dev.spindle.core* -> dev.spindle.iouring*"
  "dev.spindle.core* -> dev.spindle.netty*"
  # the API knows no wire protocol and no TLS layer: they plug in below the exchanges
  "dev.spindle.core -> dev.spindle.core.http1"
  "dev.spindle.core -> dev.spindle.core.tls"
  "dev.spindle.core -> dev.spindle.core.http2"
  # exchanges are protocol-neutral and know no strategy
  "dev.spindle.core.exchange -> dev.spindle.core.http1"
  "dev.spindle.core.exchange -> dev.spindle.core.tls"
  "dev.spindle.core.exchange -> dev.spindle.core.http2"
  "dev.spindle.core.exchange -> dev.spindle.core.spi"
  # TLS wraps a connection; the HTTP/1.1 connection does not know it is wrapped
  "dev.spindle.core.http1 -> dev.spindle.core.tls"
  # and TLS knows no wire protocol: it wraps whichever one ALPN chose, as a spi.LayeredConnection
  "dev.spindle.core.tls -> dev.spindle.core.http1"
  "dev.spindle.core.tls -> dev.spindle.core.http2"
  # the two wire protocols know nothing of each other (the switch in spi picks one) nor of TLS
  "dev.spindle.core.http1 -> dev.spindle.core.http2"
  "dev.spindle.core.http2 -> dev.spindle.core.http1"
  "dev.spindle.core.http2 -> dev.spindle.core.tls"
  # content codings act on exchanges, for both wire protocols alike: they know neither, nor TLS,
  # the strategy contract or the client
  "dev.spindle.core.compress -> dev.spindle.core.http1"
  "dev.spindle.core.compress -> dev.spindle.core.http2"
  "dev.spindle.core.compress -> dev.spindle.core.tls"
  "dev.spindle.core.compress -> dev.spindle.core.spi"
  "dev.spindle.core.compress -> dev.spindle.core.client"
  "dev.spindle.core.tls -> dev.spindle.core.compress"
  "dev.spindle.core.exchange -> dev.spindle.core.compress"
  # byte helpers depend on nothing of Spindle
  "dev.spindle.core.bytes -> dev.spindle.*"
  # the client speaks its own HTTP/1.1, over the API's result types and the strategy contract: none
  # of the server's HTTP/1.1 or exchanges (its https: connections go through the TLS layer,
  # tls.TlsClientConnection, as spi wraps the servers' in tls.TlsConnection). Its HTTP/2 uses the
  # frames and HPACK of http2 through http2.Http2Codec, one implementation for both sides; the
  # server's streams and connection stay apart (http2 knows no client, below)
  "dev.spindle.core.client -> dev.spindle.core.http1"
  "dev.spindle.core.client -> dev.spindle.core.exchange"
  # and only the API (which builds its responses) and the drivers opening its sockets use it
  "dev.spindle.core.http1 -> dev.spindle.core.client"
  "dev.spindle.core.http2 -> dev.spindle.core.client"
  "dev.spindle.core.tls -> dev.spindle.core.client"
  "dev.spindle.core.exchange -> dev.spindle.core.client"
)

spindle_find_jdk
cd "$SPINDLE_ROOT"

# "from to" lines: the package dependencies of a module's main classes on dev.spindle packages.
# A module with a module-info is analysed as that module (its dependencies on the module path).
spindle_edges() {
  local module="$1" deps path
  [[ -d "$module/target/classes" && -f "$module/target/classpath.txt" ]] ||
    { echo "error: $module is not built (no target/classes or target/classpath.txt): build first" >&2; return 2; }
  deps="$(tr -d '\r\n' <"$module/target/classpath.txt")"
  if [[ -f "$module/target/classes/module-info.class" ]]; then path=(--module-path "$deps"); else path=(-cp "$deps"); fi
  "$JAVA_HOME/bin/jdeps" --multi-release "$SPINDLE_MIN_JAVA" "${path[@]}" -verbose:package \
    "$module/target/classes" | awk '$2 == "->" && $1 ~ /^dev\.spindle\./ && $3 ~ /^dev\.spindle\./ { print $1, $3 }' | sort -u
}

# The packages of a module's main classes.
own_packages() {
  find "$1/target/classes" -name '*.class' ! -name module-info.class -printf '%h\n' | sort -u |
    sed "s|^$1/target/classes/||; s|/|.|g"
}

# Whether $1 matches one of the globs in the rest.
matches_any() {
  local package="$1" glob
  shift
  for glob in "$@"; do
    # shellcheck disable=SC2053 # the rules are globs
    [[ "$package" == $glob ]] && return 0
  done
  return 1
}

broken=()
edges="$(spindle_edges core)" || exit 2
echo "core's packages:"
while read -r from to; do
  [[ -n "$from" && "$from" != "$to" ]] || continue
  echo "  $from -> $to"
  for rule in "${CORE_FORBIDDEN[@]}"; do
    # shellcheck disable=SC2053 # the rules are globs
    if [[ "$from" == ${rule%% -> *} && "$to" == ${rule##* -> } ]]; then broken+=("core: $from -> $to (rule: $rule)"); fi
  done
done <<<"$edges"

modules=()
for dir in */target/classes references/*/target/classes; do
  [[ -d "$dir" ]] || continue
  module="${dir%/target/classes}"
  [[ "$module" == core || "$module" == docs ]] || modules+=("$module")
done
for module in "${modules[@]}"; do
  read -r -a allowed <<<"$DEFAULT_RULE"
  for rule in "${MODULE_RULES[@]}"; do
    read -r name packages <<<"$rule"
    if [[ "$name" == "$module" ]]; then read -r -a allowed <<<"$packages"; fi
  done
  edges="$(spindle_edges "$module")" || exit 2
  mapfile -t own < <(own_packages "$module")
  mapfile -t used < <(awk 'NF { print $2 }' <<<"$edges" | sort -u)
  outside=()
  for package in "${used[@]}"; do
    matches_any "$package" "${own[@]}" || outside+=("$package")
  done
  echo "$module uses: ${outside[*]:-(no other Spindle package)}"
  for package in "${outside[@]}"; do
    if ! matches_any "$package" "${allowed[@]}"; then
      users="$(awk -v p="$package" '$2 == p { print $1 }' <<<"$edges" | paste -sd, -)"
      broken+=("$module: $users -> $package (allowed: ${allowed[*]})")
    fi
  done
done

if (( ${#broken[@]} )); then
  printf 'broken layer rule: %s\n' "${broken[@]}" >&2
  exit 1
fi
echo "layers: every rule holds"
