# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared helpers for the Spindle scripts. Source it; do not run it.
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# Callers are expected to run under `set -euo pipefail`.

# Errors inside $(...) must abort the substitution too (bash >= 4.4).
shopt -s inherit_errexit 2>/dev/null || true

# Resolved once, from this file's location, so scripts work from any cwd.
SPINDLE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
SPINDLE_MIN_JAVA=25

spindle_die() {
  echo "error: $*" >&2
  exit 1
}

# A script's --help: its header comment (line 2 up to `set -euo`) without the comment marks; exits 0.
spindle_script_help() {
  sed -n '2,/^set -euo/p' "$1" | sed '$d; /^# SPDX-License-Identifier:/d; s/^# \{0,1\}//'
  exit 0
}

# The run directory of a measuring script, created with raw/ and printed as an absolute path: $1 if
# given, else (--quick, $2 = 1) a temporary one, else results/$3/<stamp $4>.
spindle_run_dir() {
  local out="$1"
  if [[ -z "$out" ]]; then
    if (( $2 )); then out="${TMPDIR:-/tmp}/spindle-$3-quick-$4"; else out="$SPINDLE_ROOT/results/$3/$4"; fi
  fi
  mkdir -p "$out/raw"
  (cd "$out" && pwd -P)
}

spindle_root() {
  echo "$SPINDLE_ROOT"
}


# Prints the version string of a java binary ("25.0.3", "17.0.15", "1.8.0_402"),
# empty if it does not run. Lines like "Picked up JAVA_TOOL_OPTIONS" are skipped.
_spindle_java_version() {
  "$1" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1 || true
}

# Major version from a version string: "1.8.0_x" -> 8, "25.0.3" -> 25, "26-ea" -> 26.
_spindle_java_major() {
  local v="$1" major
  if [[ "$v" == 1.* ]]; then
    v="${v#1.}"
  fi
  major="${v%%[!0-9]*}"
  echo "${major:-0}"
}

# Exports JAVA_HOME/PATH for a JDK >= 25: $JAVA_HOME if good enough, else the
# newest one under /usr/lib/jvm. Idempotent, so every helper can call it.
spindle_find_jdk() {
  if [[ -n "${_SPINDLE_JDK_FOUND:-}" ]]; then
    return 0
  fi
  local v major
  if [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then
    v="$(_spindle_java_version "${JAVA_HOME}/bin/java")"
    major="$(_spindle_java_major "$v")"
    if (( major >= SPINDLE_MIN_JAVA )); then
      _spindle_use_jdk "$JAVA_HOME"
      return 0
    fi
    echo "note: JAVA_HOME=$JAVA_HOME is Java ${v:-unknown}; looking for JDK ${SPINDLE_MIN_JAVA}+ in /usr/lib/jvm" >&2
  fi

  # Candidates as "major<TAB>version<TAB>dir", so sort picks the newest.
  local dir candidates=""
  for dir in /usr/lib/jvm/*/; do
    dir="${dir%/}"
    [[ -x "$dir/bin/java" && -x "$dir/bin/javac" ]] || continue  # JDK, not a bare JRE
    v="$(_spindle_java_version "$dir/bin/java")"
    major="$(_spindle_java_major "$v")"
    (( major >= SPINDLE_MIN_JAVA )) || continue
    candidates+="${major}"$'\t'"${v}"$'\t'"${dir}"$'\n'
  done
  if [[ -z "$candidates" ]]; then
    echo "Spindle needs JDK ${SPINDLE_MIN_JAVA}+; none found in JAVA_HOME or /usr/lib/jvm; install e.g. temurin-25-jdk" >&2
    exit 1
  fi
  local best
  best="$(printf '%s' "$candidates" | sort -t $'\t' -k1,1n -k2,2V | tail -n 1 | cut -f 3)"
  _spindle_use_jdk "$best"
}

_spindle_use_jdk() {
  export JAVA_HOME="$1"
  export PATH="$JAVA_HOME/bin:$PATH"
  _SPINDLE_JDK_FOUND=1
  if [[ "${SPINDLE_VERBOSE:-0}" == 1 ]]; then
    echo "using JDK at $JAVA_HOME" >&2
  fi
}


_spindle_pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# Installs the Debian packages not yet installed. `apt-get update` runs at most
# once per script run. SPINDLE_SKIP_PACKAGES=1 skips all of this (non-Debian hosts).
spindle_ensure_packages() {
  [[ "${SPINDLE_SKIP_PACKAGES:-0}" == 1 ]] && return 0
  (( $# > 0 )) || return 0
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    spindle_die "need Debian packages ($*) but apt-get/dpkg is not available; install them by hand, then rerun with SPINDLE_SKIP_PACKAGES=1"
  fi
  local pkg missing=()
  for pkg in "$@"; do
    _spindle_pkg_installed "$pkg" || missing+=("$pkg")
  done
  (( ${#missing[@]} > 0 )) || return 0

  local sudo=()
  if (( EUID != 0 )); then
    command -v sudo >/dev/null 2>&1 ||
      spindle_die "need to install ${missing[*]} but not root and sudo is missing"
    sudo=(sudo)
  fi
  echo "installing Debian packages: ${missing[*]}" >&2
  # Lock timeout: CI images sometimes run unattended upgrades at boot.
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120)
  if [[ -z "${_SPINDLE_APT_UPDATED:-}" ]]; then
    "${apt[@]}" update -qq >&2 || spindle_die "apt-get update failed"
    _SPINDLE_APT_UPDATED=1
  fi
  "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    spindle_die "apt-get install ${missing[*]} failed"
}


# Debian's python3 with matplotlib, which draws the reports' charts (scripts/lib/charts.py): sets
# SPINDLE_PYTHON. The machine's first python3 on PATH may be another installation (pyenv) that
# cannot see Debian's packages, so the scripts run this one by its path.
# As spindle_ensure_packages, for packages that ship a service (nginx, haproxy): their install
# scripts must not start it on the host's port 80; the scripts run the program themselves.
# A policy-rc.d that refuses every start (exit 101) stands for the install, unless one exists.
spindle_ensure_daemon_packages() {
  local policy=/usr/sbin/policy-rc.d pkg missing=0
  for pkg in "$@"; do
    _spindle_pkg_installed "$pkg" || missing=1
  done
  (( missing )) || return 0
  if [[ -e "$policy" || "${SPINDLE_SKIP_PACKAGES:-0}" == 1 ]]; then
    spindle_ensure_packages "$@"
    return 0
  fi
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  local rc=0
  (spindle_ensure_packages "$@") || rc=$?
  rm -f "$policy"
  (( rc == 0 )) || exit "$rc"
}

# A run written under results/ keeps each raw/ directory as one archive, raw.tar.gz, so that the
# repository tracks a file per run, not thousands (scripts/lib/raw_archive.py; the reports unpack it
# while they read). Runs elsewhere (--quick ones in a temporary directory) keep raw/ as it is.
spindle_pack_raw() {
  local dir
  dir="$(cd "$1" 2>/dev/null && pwd -P)" || return 0
  [[ "$dir" == "$SPINDLE_ROOT/results/"* ]] || return 0
  "${SPINDLE_PYTHON:-/usr/bin/python3}" "$SPINDLE_ROOT/scripts/lib/raw_archive.py" under "$dir" ||
    echo "warning: $dir/raw not packed into raw.tar.gz" >&2
}

spindle_python() {
  spindle_ensure_packages python3 python3-matplotlib
  SPINDLE_PYTHON=/usr/bin/python3
  "$SPINDLE_PYTHON" -c 'import matplotlib' 2>/dev/null ||
    spindle_die "$SPINDLE_PYTHON cannot import matplotlib although python3-matplotlib is installed"
}

# The published modules (the product: deployed by scripts/release.sh, installed by
# scripts/install-library.sh, their API guarded by api/): directories, the BOM last. Their POMs say the
# same through maven.deploy.skip=false; scripts/check-release.sh checks that the two agree.
SPINDLE_PUBLISHED_MODULES=(core blocking-server nio-servers iouring-server opentelemetry micrometer compression-zstd bom)
# The published modules with a public API of their own (the BOM has none).
SPINDLE_API_MODULES=(core blocking-server nio-servers iouring-server opentelemetry micrometer compression-zstd)

# The wrapper pins Maven 3.9.11; batch mode and no transfer progress keep logs short.
# Add -q yourself where output is noise (spindle_classpath does, unless SPINDLE_VERBOSE=1).
spindle_mvn() {
  spindle_find_jdk
  # Maven 3.9's Guice calls sun.misc.Unsafe; JDK 24+ warns about it on every run.
  if [[ " ${MAVEN_OPTS:-} " != *" --sun-misc-unsafe-memory-access="* ]]; then
    export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow"
  fi
  "$SPINDLE_ROOT/mvnw" -B -ntp "$@"
}

_spindle_mvn_quiet() {
  if [[ "${SPINDLE_VERBOSE:-0}" == 1 ]]; then
    spindle_mvn "$@"
  else
    spindle_mvn -q "$@"
  fi
}


# Sets the array SPINDLE_JVM_FLAGS: the same flags for every server JVM, so runs
# compare fairly (a JVM under taskset would otherwise pick SerialGC).
# Override the whole set with env SPINDLE_JVM_OPTS (split on whitespace).
# Use: spindle_java_opts; java "${SPINDLE_JVM_FLAGS[@]}" ...
# --sun-misc-unsafe-memory-access=allow: Netty 4.2 on Java 25 avoids sun.misc.Unsafe without it,
# which costs the reference 15-20% per CPU-second; our servers do not use Unsafe, so one set of
# flags for all stays fair.
spindle_java_opts() {
  local opts="${SPINDLE_JVM_OPTS:---enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:+UseParallelGC -Xms512m -Xmx512m}"
  # shellcheck disable=SC2034  # global, read by the calling scripts
  read -r -a SPINDLE_JVM_FLAGS <<<"$opts"
}

# Module directories a module's runtime classpath is built from: itself plus the
# spindle-* artifacts its pom names (artifactId spindle-X lives in directory X).
_spindle_module_inputs() {
  local module="$1" dep
  echo "$module"
  # shellcheck disable=SC2013  # artifactIds have no spaces
  for dep in $(sed -n 's|.*<artifactId>spindle-\([a-z0-9-]*\)</artifactId>.*|\1|p' \
    "$SPINDLE_ROOT/$module/pom.xml" | sort -u); do
    # spindle-ref-<name> is references/<name> (netty-server and the references use references/support)
    [[ "$dep" == ref-* ]] && dep="references/${dep#ref-}"
    [[ "$dep" != "parent" && "$dep" != "$module" && -d "$SPINDLE_ROOT/$dep" ]] && echo "$dep"
  done
  return 0
}

# True when the module needs a (re)build before its classpath can be trusted.
_spindle_module_stale() {
  local module="$1" stamp="$SPINDLE_ROOT/$1/target/classpath.txt"
  [[ -d "$SPINDLE_ROOT/$module/target/classes" && -f "$stamp" ]] || return 0
  # A jar listed there may have vanished (e.g. ~/.m2 wiped).
  local entry entries
  IFS=: read -r -a entries <"$stamp" || true
  for entry in "${entries[@]}"; do
    [[ -e "$entry" ]] || return 0
  done
  local inputs=("$SPINDLE_ROOT/pom.xml") m
  for m in $(_spindle_module_inputs "$module"); do
    inputs+=("$SPINDLE_ROOT/$m/pom.xml")
    [[ -d "$SPINDLE_ROOT/$m/src" ]] && inputs+=("$SPINDLE_ROOT/$m/src")
  done
  [[ -n "$(find "${inputs[@]}" -type f -newer "$stamp" -print -quit)" ]]
}

# Prints the runtime classpath of MODULE (its classes + runtime dependencies),
# building the module and what it depends on first if anything changed.
# Maven output goes to stderr, so cp=$(spindle_classpath m) captures only the path.
# The Debian packages a module's servers need at run time, installed when missing, so every script
# that starts a server (run-server.sh, the matrix, the soak, reproduce-sources.sh's parts) can run it on a
# fresh machine: IoUringServer loads liburing.so.2 through FFM.
spindle_runtime_packages() {
  case "$1" in
    iouring-server | launchers) spindle_ensure_packages liburing2 ;;
  esac
}

spindle_classpath() {
  local module="${1:?usage: spindle_classpath MODULE}"
  [[ -f "$SPINDLE_ROOT/$module/pom.xml" ]] || spindle_die "no module '$module' in $SPINDLE_ROOT"
  spindle_runtime_packages "$module"
  local cpfile="$SPINDLE_ROOT/$module/target/classpath.txt"
  if _spindle_module_stale "$module"; then
    echo "building $module (and what it depends on) ..." >&2
    (cd "$SPINDLE_ROOT" &&
      _spindle_mvn_quiet -DskipTests install -pl "$module" -am >&2 &&
      _spindle_mvn_quiet dependency:build-classpath -pl "$module" \
        -Dmdep.outputFile="$cpfile" -DincludeScope=runtime >&2) ||
      spindle_die "build of $module failed (rerun with SPINDLE_VERBOSE=1 for full Maven output)"
    # build-classpath skips rewriting an unchanged file; touch so it is newer than the sources.
    touch "$cpfile"
  fi
  local deps
  deps="$(tr -d '\r\n' <"$cpfile")"
  echo "$SPINDLE_ROOT/$module/target/classes${deps:+:$deps}"
}

# Prints "module fqcn" for a launcher class given by simple name (e.g. VirtualThreadServer).
# Unknown name: lists the available servers on stderr and exits 2.
spindle_find_server() {
  local name="${1:?usage: spindle_find_server NAME}"
  local matches=()
  if [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
    # Spindle's modules one level down, the reference servers under references/
    # Only a class with a main method: the launchers module's dev.spindle.launch.<Server> beside the
    # library's server class of the same name (older trees, which an A/B builds, had main in the latter).
    local f
    while IFS= read -r f; do
      grep -q 'static void main' "$f" && matches+=("$f")
    done < <(find "$SPINDLE_ROOT"/*/src/main/java/dev/spindle "$SPINDLE_ROOT"/references/*/src/main/java/dev/spindle \
      -type f -name "$name.java" 2>/dev/null | sort)
  fi
  if (( ${#matches[@]} > 1 )); then
    echo "error: more than one class named $name:" >&2
    printf '  %s\n' "${matches[@]#"$SPINDLE_ROOT/"}" >&2
    exit 2
  fi
  if (( ${#matches[@]} == 0 )); then
    echo "error: no server class named '$name'. Available servers:" >&2
    local f any=""
    while IFS= read -r f; do
      grep -q 'static void main' "$f" || continue
      any=1
      f="${f#"$SPINDLE_ROOT/"}"
      printf '  %-28s (%s)\n' "$(basename "$f" .java)" "${f%%/src/main/java/*}" >&2
    done < <(find "$SPINDLE_ROOT"/*/src/main/java "$SPINDLE_ROOT"/references/*/src/main/java -type f -name '*Server.java' 2>/dev/null | sort)
    [[ -n "$any" ]] || echo "  (none yet)" >&2
    exit 2
  fi
  local rel="${matches[0]#"$SPINDLE_ROOT/"}"   # core/src/main/java/dev/spindle/x/Name.java
  local module="${rel%%/src/main/java/*}"      # core, or references/vertx
  local fqcn="${rel#*/src/main/java/}"
  fqcn="${fqcn%.java}"
  echo "$module ${fqcn//\//.}"
}


# True while process PID (a child of ours) runs. A dead child stays a zombie until it is reaped,
# and kill -0 still succeeds on a zombie: its state in /proc is what tells.
spindle_pid_alive() {
  [[ -n "${1:-}" ]] || return 1
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat="${stat##*) }"   # the fields after the command name, which may hold spaces
  [[ "${stat:0:1}" != Z ]]
}

# Stops a process we started, by its PID only: SIGTERM, then SIGKILL after SECONDS (default 10).
# Sets SPINDLE_STOPPED to how it ended and SPINDLE_STOP_FORCED to 1 when it had to be killed.
# Call it outside a subshell so the final wait reaps the child.
SPINDLE_STOPPED="" SPINDLE_STOP_FORCED=0
spindle_stop_pid() {
  local pid="${1:-}" seconds="${2:-10}" i rc=0
  SPINDLE_STOPPED="" SPINDLE_STOP_FORCED=0
  [[ -n "$pid" ]] || return 0   # nothing was started
  if ! kill -TERM "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    SPINDLE_STOPPED="had already exited"
    return 0
  fi
  for (( i = 0; i < seconds * 10; i++ )); do
    spindle_pid_alive "$pid" || break
    sleep 0.1
  done
  if spindle_pid_alive "$pid"; then
    echo "warning: pid $pid ignored SIGTERM for ${seconds}s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    SPINDLE_STOP_FORCED=1 SPINDLE_STOPPED="still running ${seconds}s after SIGTERM; killed"
  else
    wait "$pid" 2>/dev/null || rc=$?
    SPINDLE_STOPPED="exited with status $rc within ${seconds}s of SIGTERM"
  fi
}

# Starts a run's meta.tsv, FILE, with what every measuring run records: its command line, start,
# commit, CPUs, machine, kernel and JDK (spindle_find_jdk first). Callers append their own rows.
spindle_meta_begin() {
  local file="$1" row
  : >"$file"
  for row in \
    "command	$2" \
    "started	$(date -u '+%Y-%m-%d %H:%M:%S')" \
    "commit	$(spindle_git_desc)" \
    "nproc	$(nproc)" \
    "machine	$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)" \
    "kernel	$(uname -r)" \
    "jdk	$JAVA_HOME: $("$JAVA_HOME/bin/java" -version 2>&1 | grep -v '^Picked up' | head -n 2 | paste -sd ';' | sed 's/;/; /g')"; do
    printf '%s\n' "${row//$'\n'/ }" >>"$file"
  done
}

# The commit this tree is at, and whether it has changes: what a result records beside its figures.
spindle_git_desc() {
  local rev dirty untracked
  rev="$(git -C "$SPINDLE_ROOT" rev-parse HEAD 2>/dev/null)" || { echo "not a git checkout"; return 0; }
  if git -C "$SPINDLE_ROOT" diff --quiet HEAD -- 2>/dev/null; then dirty="clean"; else dirty="dirty (uncommitted changes to tracked files)"; fi
  untracked="$(git -C "$SPINDLE_ROOT" ls-files --others --exclude-standard | wc -l)"
  echo "$rev, $dirty, $untracked untracked file(s)"
}

# Copies the Spindle entries of CLASSPATH (this tree's classes, Spindle jars) into DIR and prints
# the classpath with the copies in their place, so a build, `mvn clean` or another worktree's
# `mvn install` during a long run cannot change what later JVMs load; other jars are immutable.
# A Spindle jar from ~/.m2 is replaced by its module's classes in this tree (built, like the jar,
# by spindle_classpath): another checkout may have installed its own code there.
spindle_snapshot_cp() {
  local classpath="$1" dir="$2" entry n=0 dest kept=() entries artifact pom
  local -A tree_module=()   # artifactId -> module directory of this tree
  for pom in "$SPINDLE_ROOT"/*/pom.xml; do
    artifact="$(awk '/<parent>/,/<\/parent>/ { next } /<artifactId>/ { gsub(/.*<artifactId>|<\/artifactId>.*/, ""); print; exit }' "$pom")"
    [[ -z "$artifact" ]] || tree_module[$artifact]="$(dirname "$pom")"
  done
  mkdir -p "$dir"
  IFS=: read -r -a entries <<<"$classpath"
  for entry in "${entries[@]}"; do
    if [[ "$entry" == */dev/spindle/*/*.jar ]]; then
      artifact="${entry#*/dev/spindle/}" artifact="${artifact%%/*}"
      [[ -z "${tree_module[$artifact]:-}" || ! -d "${tree_module[$artifact]}/target/classes" ]] ||
        entry="${tree_module[$artifact]}/target/classes"
    fi
    if [[ -e "$entry" && ( "$entry" == "$SPINDLE_ROOT/"* || "$entry" == */dev/spindle/* ) ]]; then
      n=$(( n + 1 ))
      dest="$dir/$n-$(basename "$entry")"
      cp -a "$entry" "$dest"
      kept+=("$dest")
    else
      kept+=("$entry")
    fi
  done
  (IFS=:; echo "${kept[*]}")
}

# Waits until a server started with its stdout in OUT prints its ready line ("... listening on
# host:port") and prints the port; fails with the server's output if PID exits first or
# SECONDS (default 60) pass.  Use: port="$(spindle_await_ready PID OUT ERR [SECONDS])"
spindle_await_ready() {
  local pid="$1" out="$2" err="$3" seconds="${4:-60}" line="" i
  for (( i = 0; i < seconds * 10; i++ )); do
    line="$(grep -m 1 'listening on' "$out" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "error: the server (pid $pid) exited before it was ready; its output:" >&2
      cat "$out" "$err" >&2
      return 1
    fi
    sleep 0.1
  done
  if [[ -z "$line" ]]; then
    echo "error: the server (pid $pid) printed no 'listening on' line within ${seconds}s; its output:" >&2
    cat "$out" "$err" >&2
    return 1
  fi
  # the port is the last ":<digits>" of the line ("X listening on 127.0.0.1:43125")
  grep -oE ':[0-9]+' <<<"$line" | tail -n 1 | tr -d ':'
}
