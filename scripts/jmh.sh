#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# JMH micro-benchmarks of the core (parser, router, encoder, HTTP/1.1 and HTTP/2 connection round
# trips) and the Netty anchors (the same round trips through HttpServerCodec and Http2FrameCodec),
# in ONE JMH run with the gc profiler.
#
#   scripts/jmh.sh [options] [filter ...]
#
#   filter      JMH include regexps (default: all), e.g. RoundTrip or 'Parse.*pipelined'
#   --out FILE  report path (default results/jmh/<UTC date>.md; the JSON goes beside it)
#   --quick     1 warm-up + 2 measurement iterations of 0.5 s (a look, not a result)
#   --profile P extra JMH profiler, e.g. jfr or "jfr:dir=/tmp/jfr" (gc is always on)
#   -- ARGS     passed to JMH as they are, after the defaults (e.g. -- -f 2 -i 10)
#
# Layout: the core's benchmarks are test sources beside the code they measure
# (core/src/test/java/dev/spindle/core/bench, reaching package-private parts through the test
# class dev.spindle.core.http1.BenchAccess); the Netty anchor is in netty-server/src/test/java/
# dev/spindle/netty/bench. jmh-generator-annprocess runs in each module's testCompile and writes a
# META-INF/BenchmarkList per module; this script merges the two lists (and CompilerHints) into a
# directory placed first on netty-server's test classpath (which holds core's classes too), so one
# JMH invocation runs both and the ratios come from one run. Pairs: CoreRoundTrip with NettyRoundTrip
# (its plain codec pipeline) and Http2RoundTrip with NettyHttp2RoundTrip, route by route.
# CI does not run this: BenchmarkSmokeTest in each module runs every benchmark for one 100 ms
# iteration in-process (no timing asserted).
#
# Defaults: 1 fork (3 for the parser, whose JIT outcome varies by fork), 5 x 2 s warm-up (Netty's pipeline needs ~5 s of C2 time on 2 cores before it
# is steady), 5 x 1 s measurement, throughput in ops/s, -prof gc; about 6 minutes in all. Forks get
# the matrix's JVM flags (spindle_java_opts / SPINDLE_JVM_OPTS) plus what a tuned Netty deployment
# sets (Unsafe allowed on JDK 25, leak detection off, no bounds/accessibility checks): those help
# only the anchor.
# Writes <out>.md (table: ops/s, B/op, ratio to Netty; targets; command; environment) and <out>.json.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ROOT="$(spindle_root)"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

ORIG_ARGS=("$@")
OUT=""
QUICK=0
PROFILERS=()
FILTERS=()
EXTRA=()
while (( $# > 0 )); do
  case "$1" in
    -h|--help) usage ;;
    --out) OUT="${2:?--out needs a file}"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --profile) PROFILERS+=(-prof "${2:?--profile needs a profiler}"); shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -*) echo "unknown option: $1" >&2; usage ;;
    *) FILTERS+=("$1"); shift ;;
  esac
done

spindle_find_jdk
command -v python3 >/dev/null || spindle_die "python3 is needed to write the report"

if [[ -z "$OUT" ]]; then
  OUT="$ROOT/results/jmh/$(date -u +%F).md"
fi
mkdir -p "$(dirname "$OUT")" || spindle_die "cannot create the directory for $OUT"
OUT="$(cd "$(dirname "$OUT")" && pwd -P)/$(basename "$OUT")"
JSON="${OUT%.md}.json"

echo "building core and netty-server (with test classes) ..." >&2
(cd "$ROOT" && _spindle_mvn_quiet -DskipTests install -pl core,netty-server -am >&2) ||
  spindle_die "build failed (rerun with SPINDLE_VERBOSE=1 for Maven's output)"
CPFILE="$ROOT/netty-server/target/jmh-classpath.txt"
(cd "$ROOT" && _spindle_mvn_quiet dependency:build-classpath -pl netty-server \
  -DincludeScope=test -Dmdep.outputFile="$CPFILE" >&2) || spindle_die "could not resolve netty-server's test classpath"

# One BenchmarkList for both modules' benchmarks.
MERGED="$ROOT/netty-server/target/jmh-merged"
rm -rf "$MERGED" && mkdir -p "$MERGED/META-INF"
for f in BenchmarkList CompilerHints; do
  cat "$ROOT/core/target/test-classes/META-INF/$f" "$ROOT/netty-server/target/test-classes/META-INF/$f" |
    sort -u >"$MERGED/META-INF/$f"
done
CP="$MERGED:$ROOT/netty-server/target/test-classes:$ROOT/netty-server/target/classes"
CP+=":$ROOT/core/target/test-classes:$ROOT/core/target/classes:$(tr -d '\r\n' <"$CPFILE")"

spindle_java_opts
FORK_FLAGS=("${SPINDLE_JVM_FLAGS[@]}")
for flag in --sun-misc-unsafe-memory-access=allow -Dio.netty.leakDetection.level=disabled \
  -Dio.netty.buffer.checkBounds=false -Dio.netty.buffer.checkAccessible=false \
  -Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener; do
  [[ " ${FORK_FLAGS[*]} " == *" ${flag%%=*}="* ]] || FORK_FLAGS+=("$flag")
done
if (( QUICK )); then
  RUN=(-f 1 -wi 1 -w 500ms -i 2 -r 500ms)
else
  RUN=(-wi 5 -w 2s -i 5 -r 1s)  # forks from each class's @Fork: 1, and 3 for ParseBenchmark
fi
JMH_ARGS=("${RUN[@]}" -bm thrpt -tu s -prof gc "${PROFILERS[@]}" -rf json -rff "$JSON"
  -jvmArgs "${FORK_FLAGS[*]}" "${EXTRA[@]}" "${FILTERS[@]}")

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "load average before: $LOAD_BEFORE" >&2
START=$(date -u +%FT%TZ)
java --sun-misc-unsafe-memory-access=allow -cp "$CP" org.openjdk.jmh.Main "${JMH_ARGS[@]}" >&2
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$ROOT" status --porcelain -- core/pom.xml core/src/main \
  core/src/test/java/dev/spindle/core/bench core/src/test/java/dev/spindle/core/BenchAccess.java \
  core/src/test/java/dev/spindle/core/testing/TestRoutes.java \
  netty-server/pom.xml netty-server/src/test/java/dev/spindle/netty/bench scripts/jmh.sh 2>/dev/null)" ]]; then
  COMMIT+=" (with uncommitted changes to the benchmarked code)"
fi
export R_START="$START" R_COMMIT="$COMMIT" R_CMD="scripts/jmh.sh ${ORIG_ARGS[*]}" R_LOAD="$LOAD_BEFORE / $LOAD_AFTER"
R_JMH="org.openjdk.jmh.Main"
for a in "${JMH_ARGS[@]}"; do
  if [[ "$a" == "$JSON" ]]; then a="<out>.json"; fi
  if [[ "$a" == *" "* ]]; then R_JMH+=" '$a'"; else R_JMH+=" $a"; fi
done
export R_JMH R_FLAGS="${FORK_FLAGS[*]}"
R_JDK="$(java -version 2>&1 | tr '\n' ' ')"
R_CPU="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
R_CORES="$(nproc)"
R_KERNEL="$(uname -srm)"
export R_JDK R_CPU R_CORES R_KERNEL
python3 - "$JSON" "$OUT" <<'PY'
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
runs = json.load(open(src))
E = os.environ
env = [
    ("date (UTC)", E["R_START"], False),
    ("command", E["R_CMD"].strip(), True),
    ("JMH", E["R_JMH"], True),
    ("commit", E["R_COMMIT"], False),
    ("JDK", E["R_JDK"].strip(), False),
    ("fork JVM flags", E["R_FLAGS"], True),
    ("CPU", E["R_CPU"], False),
    ("cores", E["R_CORES"], False),
    ("kernel", E["R_KERNEL"], False),
    ("load average (1/5/15 min) before / after", E["R_LOAD"], False),
]

def short(name):
    cls, meth = name.rsplit(".", 2)[-2:]
    return cls.replace("Benchmark", ""), meth

rows = []
for r in runs:
    cls, meth = short(r["benchmark"])
    params = r.get("params", {})
    pm = r["primaryMetric"]
    sec = r.get("secondaryMetrics", {})
    alloc = sec.get("gc.alloc.rate.norm", {}).get("score")
    rows.append(dict(cls=cls, meth=meth, params=params, ops=pm["score"], err=pm["scoreError"],
                     unit=pm["scoreUnit"], alloc=alloc, raw=pm.get("rawData", []), opi=r.get("measurementBatchSize", 1)))

def find(cls, meth, **params):
    for x in rows:
        if x["cls"] == cls and x["meth"] == meth and all(x["params"].get(k) == v for k, v in params.items()):
            return x
    return None

def anchor_of(x):
    if x["cls"] in ("CoreRoundTrip", "NettyRoundTrip"):
        return find("NettyRoundTrip", "roundTrip", route=x["params"]["route"], pipeline="codec")
    if x["cls"] in ("Http2RoundTrip", "NettyHttp2RoundTrip"):
        return find("NettyHttp2RoundTrip", "roundTrip", route=x["params"]["route"])
    return None

def ratio_of(x):
    n = anchor_of(x)
    return x["ops"] / n["ops"] if n else None

def fmt_ops(v):
    return f"{v:,.0f}"

def fmt_err(v):
    v = float(v)  # JMH writes "NaN" when there are too few iterations for an error
    return "" if v != v else f"± {v:,.0f}"

lines = ["# JMH: core hot path vs. Netty's HttpServerCodec and Http2FrameCodec", ""]
lines += ["Throughput is per request (ops/s; the pipelined parse counts 16 operations per call). "
          "B/op is `gc.alloc.rate.norm` from `-prof gc`: bytes allocated per request in steady state. "
          "Ratio: throughput relative to the Netty round trip for the same route through the plain "
          "`HttpServerCodec` pipeline (the anchor); for HTTP/2 (`Http2RoundTrip`), relative to "
          "`NettyHttp2RoundTrip`, the same frames through Netty's `Http2FrameCodec`.", ""]
lines += ["| benchmark | params | ops/s | error (99.9%) | B/op | ratio to Netty |", "|---|---|---:|---:|---:|---:|"]
for x in rows:
    p = ", ".join(f"{k}={v}" for k, v in x["params"].items())
    rt = ratio_of(x)
    a = "" if x["alloc"] is None else f"{x['alloc']:.1f}"
    lines.append(f"| {x['cls']}.{x['meth']} | {p} | {fmt_ops(x['ops'])} | {fmt_err(x['err'])} | {a} | {'' if rt is None else f'{rt:.2f}x'} |")

lines += ["", "## Targets (issue 6)", ""]
core = find("CoreRoundTrip", "roundTrip", route="plaintext")
netty = find("NettyRoundTrip", "roundTrip", route="plaintext", pipeline="codec")
one = find("Parse", "wrkGet")
six = find("Parse", "pipelined16")
def mark(ok):
    return "met" if ok else "NOT met"
if core and netty:
    r = core["ops"] / netty["ops"]
    lines.append(f"- core `/plaintext` round trip >= 2x the Netty codec path: **{r:.2f}x** "
                 f"({fmt_ops(core['ops'])} vs {fmt_ops(netty['ops'])} ops/s) - {mark(r >= 2)}")
if core and core["alloc"] is not None:
    lines.append(f"- allocation per `/plaintext` round trip <= 64 B: **{core['alloc']:.1f} B/op** "
                 f"(Netty: {netty['alloc']:.1f} B/op) - {mark(core['alloc'] <= 64)}" if netty else
                 f"- allocation per `/plaintext` round trip <= 64 B: **{core['alloc']:.1f} B/op** - {mark(core['alloc'] <= 64)}")
if one and six:
    r = six["ops"] / one["ops"]
    lines.append(f"- parse cost flat with 16 pipelined: per-request throughput pipelined / single = **{r:.2f}** "
                 f"({fmt_ops(six['ops'])} vs {fmt_ops(one['ops'])} ops/s; >= 0.9 counts as flat) - {mark(r >= 0.9)}")
    def forks(x):
        return ", ".join(fmt_ops(sum(f) / len(f)) for f in x["raw"])
    lines.append(f"  - per-fork means, single: {forks(one)}; pipelined: {forks(six)}")
if len(lines) and lines[-1] == "":
    lines.append("(the filter left out the benchmarks the targets need)")
core_json = find("CoreRoundTrip", "roundTrip", route="json")
netty_json = find("NettyRoundTrip", "roundTrip", route="json", pipeline="codec")
if core and netty and core_json and netty_json:
    lines += ["", "## Targets (issue 27: HTTP/1.1 unchanged beside HTTP/2)", ""]
    for c, n, path in ((core, netty, "/plaintext"), (core_json, netty_json, "/json")):
        r = c["ops"] / n["ops"]
        lines.append(f"- HTTP/1.1 `{path}` round trip >= 3x the Netty codec path with 0 B/op: **{r:.2f}x**, "
                     f"**{c['alloc']:.1f} B/op** - {mark(r >= 3 and c['alloc'] < 1)}")
for route in ("plaintext", "json"):
    h2 = find("Http2RoundTrip", "roundTrip", route=route)
    n2 = find("NettyHttp2RoundTrip", "roundTrip", route=route)
    if h2 and n2:
        if not any(l.startswith("## HTTP/2") for l in lines):
            lines += ["", "## HTTP/2 round trip vs. Netty's Http2FrameCodec (issue 27; no target set)", ""]
        lines.append(f"- `/{route}`: **{h2['ops'] / n2['ops']:.2f}x** ({fmt_ops(h2['ops'])} vs {fmt_ops(n2['ops'])} ops/s), "
                     f"{h2['alloc']:.1f} vs {n2['alloc']:.1f} B/op")

lines += ["", "## Environment", ""]
for k, v, code in env:
    lines.append(f"- {k}: `{v}`" if code else f"- {k}: {v}")
lines += ["", "Raw JMH results: `" + src.rsplit("/", 1)[-1] + "` beside this file.", ""]
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
PY
echo "wrote ${OUT#"$ROOT/"} and ${JSON#"$ROOT/"}" >&2
