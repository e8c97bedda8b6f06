#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes section.md of the source-reproduction parts 001, 002 and 004 from their raw/ files.

    sections.py doc001|doc002|doc004 <part_out_dir>

The published figures are copied here from the documents in ../shared/sources/ (file names in
each section); the measured ones come only from raw/results.tsv and raw/meta.tsv.
"""
import csv
import re
import statistics
import sys
from pathlib import Path


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_meta(path):
    meta = {}
    for line in Path(path).read_text().splitlines():
        key, _, value = line.partition("\t")
        meta[key] = value
    return meta


def commands(out):
    return (out / "raw" / "commands.txt").read_text().splitlines()


def fmt(x, digits=0):
    if x is None:
        return "—"
    return f"{x:,.{digits}f}"


def quick_note(meta):
    if meta.get("quick") == "1":
        return ("\n**Quick run (`--quick`)**: a smoke test of the mechanics with shortened loads; "
                "its figures are not measurements to quote.\n")
    return ""


def command_block(lines):
    """Every distinct command shape, request counts as N: what ran, without a line per step."""
    seen = []
    for line in lines:
        key = re.sub(r"-n \d+", "-n N", line)
        if key not in seen:
            seen.append(key)
    return "```\n" + "\n".join(seen) + "\n```\n"


# --- 001: the hand-rolled routing server -------------------------------------------------------

DOC001 = "001_f8fd638530d0b93b.txt"
# requests per thread -> (requests per second as printed, successful, total), per series
DOC001_STEPS = {
    ("single", "static"): {10: ("2500.0", 10, 10), 20: ("4000.0", 20, 20), 30: ("3000.0", 30, 30),
                           40: ("4000.0", 40, 40), 50: ("3846.153846153846", 50, 50),
                           60: ("4214.285714285715", 59, 60)},
    ("single", "dynamic"): {10: ("2000.0", 10, 10), 20: ("1666.6666666666667", 20, 20),
                            30: ("3750.0", 30, 30), 40: ("3636.3636363636365", 40, 40),
                            50: ("3125.0", 50, 50), 60: ("5800.0", 58, 60)},
    ("pool", "static"): {10: ("5000.0", 10, 10), 20: ("10000.0", 20, 20), 30: ("7500.0", 30, 30),
                         40: ("8000.0", 40, 40), 50: ("5000.0", 50, 50),
                         60: ("8571.42857142857", 60, 60), 70: ("7777.777777777777", 70, 70),
                         80: ("7333.333333333333", 66, 80), 90: ("6923.076923076923", 90, 90)},
    ("pool", "dynamic"): {10: ("1666.6666666666667", 10, 10), 20: ("5000.0", 20, 20),
                          30: ("5000.0", 30, 30), 40: ("5714.285714285715", 40, 40),
                          50: ("6250.0", 50, 50), 60: ("7500.0", 60, 60), 70: ("7000.0", 70, 70),
                          80: ("6777.777777777777", 61, 80)},
}
DOC001_CLAIMS = {
    ("single", "static"): "while the quantity of request per thread is 50, reach the threshold of test "
                          "environment, the highest rps(request per second) is about 4,000, the max "
                          "average respond time is about 8ms",
    ("single", "dynamic"): "while the quantity of request per thread is 30~40, reach the threshold of test "
                           "environment, the highest rps(request per second) is about 3,600, the max "
                           "average respond time is about 10ms",
    ("pool", "static"): "while the quantity of request per thread is 80, reach the threshold of test "
                        "environment, the highest rps(request per second) is about 8,000, the max "
                        "average respond time is about 5ms",
    ("pool", "dynamic"): "while the quantity of request per thread is 70, reach the threshold of test "
                         "environment, the highest rps(request per second) is about 7,000, the max "
                         "average respond time is about 5ms",
}
SERIES_SERVER = {"single": "SingleThreadServer", "pool": "ThreadPoolServer"}


def doc001(out):
    meta = read_meta(out / "raw" / "meta.tsv")
    rows = read_tsv(out / "raw" / "results.tsv")
    servers = meta["servers"].split()
    threads, doc_threads = int(meta["threads"]), int(meta["doc_threads"])
    steps = sorted({int(r["per_thread"]) for r in rows if r["kind"] == "step"})

    def step(server, route, k):
        for r in rows:
            if (r["server"], r["route"], r["kind"], r["per_thread"]) == (server, route, "step", str(k)):
                return r
        return None

    def timed(server, route):
        """The timed runs of one cell: (median, min, max req/s, median mean ms, failed, runs, seconds)."""
        runs = [r for r in rows if (r["server"], r["route"], r["kind"]) == (server, route, "timed")]
        if not runs:
            return None
        v = [float(r["req_per_s"]) for r in runs]
        return (statistics.median(v), min(v), max(v),
                statistics.median(float(r["mean_ms"]) for r in runs),
                sum(int(r["failed"]) + int(r["non2xx"]) for r in runs), len(runs),
                [float(r["seconds"]) for r in runs])

    def timed_cell(t):
        if t is None:
            return "—"
        m, lo, hi, mean, bad, _, _ = t
        return f"{fmt(m)} ({fmt(lo)}-{fmt(hi)})" + (f", {bad} failed" if bad else "") + f" | {mean:.2f}"

    def cell(r):
        if r is None:
            return "—"
        bad = int(r["failed"]) + int(r["non2xx"])
        return fmt(float(r["req_per_s"])) + (f" ({bad} failed)" if bad else "")

    def pub(series, route, k):
        p = DOC001_STEPS[(series, route)].get(k)
        if p is None:
            return "—"
        rps, ok, total = p
        return rps + ("" if ok == total else f" ({ok} of {total} succeeded)")

    s = []
    s.append('## 001: "execute simple stress test on the single-thread while loop server": '
             "a hand-rolled routing server, one thread and then a thread pool\n")
    s.append(quick_note(meta))
    s.append(f"""
### What the document ran

`{DOC001}`: a server of its own (`WebClient.build().bind(8000)` with a `HealthCheckHandler`, a
`QuestionParamHandler` and a `PathVariableHandler`) on an "Intel(R) Core(TM) Ultra 7 155H" with
"Oracle OpenJDK 23.0.2" on Windows 11, first accepting and serving one connection at a time, then
handing each accepted socket to a thread pool (`threadPool.execute(...)`; the pool's size is not
given). Each connection carries one request: its handler (shown with the pool) reads the head,
prints the request (`System.out.println(request)`), writes the response and closes the socket.
Its test process:

> - send 100 pre-request to warm up
> - gradually increase the frequency of requests
> - up to 100(100 request per thread, the quantity of threads is a half the cpu's core)
> - test the static path and dynamic path individually
> - recode the performance when reach the threshold of the test environment

Its client (`org.example.web.WebClientStressTest`, source not published) prints one block per step
with "Total requests", "Total test time" in whole milliseconds (2 ms to 16 ms) and "Requests per
second" = requests / that time, so each printed rate rests on a few milliseconds, and one
millisecond more or less moves it by 6-50%. Its printed totals (10, 20, ... 90) equal the text's "request per thread", so
whether a step sent that many requests in all or per thread is not clear from the document. Its
conclusions, quoted:

""")
    for series in ("single", "pool"):
        for route in ("static", "dynamic"):
            s.append(f"> {DOC001_CLAIMS[(series, route)]}\n>\n")
    s.append("> by introducing thread pool, the rps increases from about 4000 to 7000, the max average "
             "respond time decreases from 8~10ms to 5ms.\n")
    s.append(f"""
### What we ran

Spindle's `SingleThreadServer` (one thread accepts and serves each connection to completion) for
the first series and `ThreadPoolServer` (default pool: as many threads as cores) for the second,
with {", ".join(f"`{x}`" for x in servers[2:]) or "no other server"} beside them; the static path is
`GET /plaintext`, the dynamic path `GET /users/{{id}}` (a path variable, `/users/42`). The
client is `ab` without `-k`: it speaks HTTP/1.0 and opens a new connection for every request, as
the document's client and server did, and `-c` keeps that many requests in flight, as that many
client threads each sending its requests one after the other would. Client threads: half of this
machine's {meta["cores"]} cores = **{threads}**. After 100 warm-up requests (as the document), each
step k runs `ab -n k×{threads} -c {threads}` (k requests per client thread). A step lasts
milliseconds, as the document's did, so its rate is not a measurement to rank by. The document's
four cells (one thread and a pool, each on the static and on the path-variable route) and the
other servers' are then measured at the document's own concurrency: half of its machine's cores.
The document gives only the CPU's model; Intel's specification of the Core Ultra 7 155H gives 16
cores (22 threads), so **{doc_threads}** client threads (if "core" meant a hardware thread it would
be 11). Each cell: a warm-up of {meta["timed_warm"]} s, then {meta["timed_runs"]} runs of
{meta["timed_secs"]} s each (`ab -t {meta["timed_secs"]}`; `-r` counts a failed receive as a failed
request instead of ending the run), reported as the median and the min-max of the runs. The commands (port shown as PORT):

""")
    s.append(command_block(commands(out)))
    for route, title in (("static", "static path, `GET /plaintext`"),
                         ("dynamic", "path variable, `GET /users/{id}`")):
        s.append(f"\n#### Steps, {title}: requests per second\n\n")
        head = ["requests per client thread", "published, one thread", f"{servers[0]}",
                "published, thread pool", f"{servers[1]}"] + servers[2:]
        s.append("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for k in sorted(set(steps) | set(DOC001_STEPS[("single", route)]) | set(DOC001_STEPS[("pool", route)])):
            line = [str(k), pub("single", route, k), cell(step(servers[0], route, k)),
                    pub("pool", route, k), cell(step(servers[1], route, k))]
            line += [cell(step(x, route, k)) for x in servers[2:]]
            s.append("| " + " | ".join(line) + " |\n")
    s.append("""
Published: as printed, with the failed connections it reported ("request failed: Connection
refused: connect"); "—": no such step. Measured: `ab`'s requests per second at that step, with
`-n` = step × client threads.

#### The four cells: published beside measured

| series | published (the document's conclusion) | measured: highest step, """ + f"{threads}" + """ client(s) | measured: """ + f"{doc_threads}" + """ clients, req/s, median (min-max) of """ + meta["timed_runs"] + """ runs | mean ms (median) |
|---|---|---|---|---|
""")
    pub_peak = {("single", "static"): "about 4,000 (max average about 8 ms)",
                ("single", "dynamic"): "about 3,600 (max average about 10 ms)",
                ("pool", "static"): "about 8,000 (max average about 5 ms)",
                ("pool", "dynamic"): "about 7,000 (max average about 5 ms)"}

    def best_step(server, route):
        return max((float(r["req_per_s"]) for r in rows
                    if r["server"] == server and r["route"] == route and r["kind"] == "step"), default=None)

    for series in ("single", "pool"):
        for route in ("static", "dynamic"):
            server = SERIES_SERVER[series]
            s.append(f"| {'one thread' if series == 'single' else 'thread pool'}, {route} → {server} | "
                     f"{pub_peak[(series, route)]} | {fmt(best_step(server, route))} | "
                     f"{timed_cell(timed(server, route))} |\n")
    for server in servers[2:]:
        for route in ("static", "dynamic"):
            s.append(f"| {server}, {route} (no published counterpart) | — | {fmt(best_step(server, route))} | "
                     f"{timed_cell(timed(server, route))} |\n")

    def ratio(route, which):
        a, b = timed(servers[1], route), timed(servers[0], route)
        if a is None or b is None or b[0] == 0:
            return "—"
        if which == "median":
            return f"{a[0] / b[0]:.2f}x"
        return f"{a[1] / b[2]:.2f}x-{a[2] / b[1]:.2f}x"

    secs = [x for server in servers for route in ("static", "dynamic") if timed(server, route)
            for x in timed(server, route)[6]]
    s.append(f"""
The mean is `ab`'s "Time per request (mean)": the time one client waits for an answer, the
document's "Average response time". Each timed run lasted {min(secs, default=0):.2f}-{max(secs, default=0):.2f} s
(`ab`'s "Time taken for tests"); the raw outputs are `raw/<server>/<route>-timed-c{doc_threads}-run<N>.ab`.
The document's summary: "by introducing thread pool, the rps increases from about 4000 to 7000" (its
four conclusions' "highest rps": about 4,000 → about 8,000 on the static path, about 3,600 → about
7,000 on the dynamic path, each from single steps of a few milliseconds). Here {servers[1]} ÷
{servers[0]} at {doc_threads} clients, medians: **{ratio("static", "median")}** on the static route and
**{ratio("dynamic", "median")}** on the path-variable route (from the runs' extremes:
{ratio("static", "range")} and {ratio("dynamic", "range")}).

### What carries over and what does not

The pattern carries over (one request per connection, a handful of clients, one thread against a
pool); the absolute rates do not: the document's come from another CPU and OS, a client whose
rates rest on 2-16 ms of measurement, and a server printing every request. What the pool can gain
depends on how many clients wait at once and how many cores can serve them: at the document's
{doc_threads} clients this machine has {meta["cores"]} cores for `ab` and the server together (the
document does not say where its client ran); and with a new TCP connection
per request, connection set-up and teardown rather than routing is most of what every row
measures.
""")
    (out / "section.md").write_text("".join(s))


# --- 002: the event-system payload benchmark --------------------------------------------------

DOC002 = "002_5c8d3c27af7b2099.txt"
DOC002_TABLE = """Small payload one-way of 72 bytes - min 513.875, max 790.514 events/second
Small payload 2-way of 69 bytes - min 674.309, max 749.064 events/second

Medium payload one-way of 10,069 bytes - min 704.225, max 907.441 events/second
Medium payload 2-way of 10,066 bytes - min 988.142, max 1,207.729 events/second

Large payload one-way of 100,071 bytes - min 413.907, max 479.386 events/second
Large payload 2-way of 100,068 bytes - min 339.674, max 370.92 events/second

Extra large payload one-way of 500,071 bytes - min 90.959, max 102.291 events/second
Extra large payload 2-way of 500,068 bytes - min 62.406, max 77.748 events/second"""
# (direction, size) -> (min, max) events/second, as published
DOC002_FIGURES = {
    ("one-way", 72): (513.875, 790.514), ("two-way", 69): (674.309, 749.064),
    ("one-way", 10069): (704.225, 907.441), ("two-way", 10066): (988.142, 1207.729),
    ("one-way", 100071): (413.907, 479.386), ("two-way", 100068): (339.674, 370.92),
    ("one-way", 500071): (90.959, 102.291), ("two-way", 500068): (62.406, 77.748),
}


def mb(x):
    return f"{x / 1e6:,.2f}" if x >= 1e5 else f"{x / 1e6:,.3f}"


def doc002(out):
    meta = read_meta(out / "raw" / "meta.tsv")
    rows = read_tsv(out / "raw" / "results.tsv")
    servers = list(dict.fromkeys(r["server"] for r in rows))
    sizes = {d: sorted({int(r["size"]) for r in rows if r["direction"] == d}) for d in ("one-way", "two-way")}
    s = []
    s.append('## 002: "Benchmark client": an event-system benchmark with payloads of 72 B to 500 KB, '
             "one-way and two-way\n")
    s.append(quick_note(meta))
    s.append(f"""
### What the document ran

`{DOC002}`: a client sending events to a server "through the kafka event stream system"
("Eclipse Vertx" in memory, Kafka between the instances, 200 workers per service with the rest
queued, "an embedded Berkerly DB" (its spelling) as the queue, payloads over 64 KB "broken into segments of 64 KB
chunks"), on "Windows 11 Pro", an "Intel i7 10th generation 2.7 GHz CPU and 16 GB memory", "Java
OpenJDK version 18". Its sample, verbatim:

```
{DOC002_TABLE}
```

> The above measurement uses parallel RPC (request-response).
> One-way means sending some payload and return a boolean value in the response.
> Two-way means sending some payload and return the same payload in the response.
>
> Therefore, the actual number of events processed is 2 times the above values.

and, under "Most efficient payload size":

> As anticipated, the most efficient payload size over the network is 6 to 10 KB.

The document does not say what "efficient" measures. In its own table the 10 KB ("Medium") rows
have the most events per second in both directions; in payload bytes per second (events/s ×
size, computed here from its figures) the larger sizes move far more:

| payload | published events/s (min-max) | payload MB/s (min-max), computed |
|---|---|---|
""")
    for d in ("one-way", "two-way"):
        for (dd, size), (lo, hi) in DOC002_FIGURES.items():
            if dd == d:
                s.append(f"| {d}, {size:,} B | {lo:,} - {hi:,} | {mb(lo * size)} - {mb(hi * size)} |\n")
    s.append(f"""
### What we ran

The same payload sizes to the byte, plus 6,000 B (the low end of the document's "6 to 10 KB",
which its table does not measure), over HTTP/1.1 with keep-alive: one-way is `POST /ingest`
(the body read whole, answered 200 `text/plain` `true`, the boolean), two-way is `POST /echo` (the
body sent back). The document's "parallel RPC" is here {meta["connections"]} connections of wrk,
each with a request in flight ({meta["wrk_threads"]} wrk thread; the body is made once by `scripts/lib/bench-post.lua`).
Each server (`[workers]` = {meta["workers"]}, the cores) gets a warm-up of {meta["warmup"]} s per
route at the 10 KB size, then {meta["duration"]} s per cell. No queue, broker or serialization sits
between client and handler, so this measures only the HTTP server's share of such a system. The
commands (port shown as PORT):

""")
    s.append(command_block(commands(out)))

    def get(server, d, size):
        for r in rows:
            if (r["server"], r["direction"], r["size"]) == (server, d, str(size)):
                return r
        return None

    def bad(r):
        n = int(r["non2xx"]) + int(r["socket_errors"])
        return f" ({n} errors)" if n else ""

    for d in ("one-way", "two-way"):
        s.append(f"\n#### {d.capitalize()} ({'`POST /ingest`' if d == 'one-way' else '`POST /echo`'})\n\n")
        both = " (each direction)" if d == "two-way" else ""
        s.append(f"| payload | published events/s (min-max) | " + " | ".join(
            f"{x} req/s, payload MB/s{both}" for x in servers) + " |\n|" + "---|" * (len(servers) + 2) + "\n")
        for size in sizes[d]:
            lo, hi = DOC002_FIGURES.get((d, size), (None, None))
            line = [f"{size:,} B", "— (not in the document)" if lo is None else f"{lo:,} - {hi:,}"]
            for x in servers:
                r = get(x, d, size)
                if r is None:
                    line.append("—")
                else:
                    rps = float(r["req_per_s"])
                    line.append(f"{fmt(rps)}, {mb(rps * size)}{bad(r)}")
            s.append("| " + " | ".join(line) + " |\n")

    s.append("\n#### Which size is the most efficient, per server\n\n"
             "| server | direction | most req/s at | most payload bytes/s at |\n|---|---|---|---|\n")
    for x in servers:
        for d in ("one-way", "two-way"):
            cells = [r for r in rows if r["server"] == x and r["direction"] == d]
            if not cells:
                continue
            by_rps = max(cells, key=lambda r: float(r["req_per_s"]))
            by_bytes = max(cells, key=lambda r: float(r["req_per_s"]) * int(r["size"]))
            s.append(f"| {x} | {d} | {int(by_rps['size']):,} B | {int(by_bytes['size']):,} B |\n")
    s.append("""| the document | one-way | 10,069 B | 500,071 B (computed) |
| the document | two-way | 10,066 B | 500,068 B by max, 100,068 B by min (computed) |

The published events/s count request-response pairs, as our req/s do (the document: "the actual
number of events processed is 2 times the above values"). "Payload MB/s" is req/s × payload size
(10^6 bytes); two-way carries that much in each direction. Headers are not counted.

### What carries over and what does not

The shape of the question carries over: how requests per second and bytes per second change with
the payload, one-way against two-way, many requests in flight. The figures do not: the document
measured a broker pipeline (Kafka, an embedded key-value queue, 64 KB segments) on a Windows 11 Pro machine, whose
costs per event and per byte are not an HTTP server's; here client and server share this
machine's cores over loopback, so which size comes out "most efficient" (the table above) says
how this server and machine split a fixed cost per request from a cost per byte, and only in the
sense named: most requests or most payload bytes per second.
""")
    (out / "section.md").write_text("".join(s))


# --- 004: the ranking of ten hand-rolled servers ----------------------------------------------

DOC004 = "004_6a0fac2468eafd79.txt"
# rank, server, req/s, technology, avg latency ms, the Spindle row that maps to it (None: none)
DOC004_RANKING = [
    (1, "IoUringServer", 674498, "io_uring + FFM API", "1.51ms", "IoUringServer"),
    (2, "RawHttpServer", 609188, "NIO Multi-EventLoop", "1.72ms", "MultiLoopServer"),
    (3, "HyperHttpServer", 605133, "NIO + Pipelining", "1.69ms", None),
    (4, "BossWorkerHttpServer", 573335, "NIO Boss/Worker", "1.73ms", "BossWorkerServer"),
    (5, "RocketHttpServer", 540310, "NIO + SO_REUSEPORT", "1.67ms", "ReusePortServer"),
    (6, "UltraHttpServer", 485550, "NIO Minimal", "2.70ms", None),
    (7, "TurboHttpServer", 477118, "NIO + selectNow", "2.56ms", "MultiLoopServer-busypoll"),
    (8, "ZeroCopyHttpServer", 471315, "NIO + Busy-poll", "2.76ms", "MultiLoopServer-busypoll"),
    (9, "UltraFastHttpServer", 290052, "NIO Single-thread", "48.68ms", "SingleLoopServer"),
    (10, "FastHttpServer", 213380, "NIO + VirtualThreads", "75.14ms", "VirtualThreadServer"),
]
DOC004_NO_COUNTERPART = {
    "HyperHttpServer": "every Spindle server answers pipelined requests, and wrk here does not pipeline: no separate row",
    "UltraHttpServer": "\"Minimal HTTP response\": every Spindle response carries Date, Server and Content-Length; no such variant",
}


def doc004(out):
    meta = read_meta(out / "raw" / "meta.tsv")
    rows = read_tsv(out / "raw" / "results.tsv")
    starts = read_tsv(out / "raw" / "starts.tsv")
    servers = list(dict.fromkeys(r["server"] for r in rows))
    med = {}
    for x in servers:
        v = [float(r["req_per_s"]) for r in rows if r["server"] == x]
        lat = [float(r["avg_latency_ms"]) for r in rows if r["server"] == x]
        errs = sum(int(r["non2xx"]) + int(r["socket_errors"]) for r in rows if r["server"] == x)
        unsteady = [r["reason"] for r in starts if r["server"] == x and r["steady"] != "1"]
        med[x] = (statistics.median(v), min(v), max(v), statistics.median(lat), errs, unsteady, len(v))
    ours = sorted(servers, key=lambda x: -med[x][0])
    top = med[ours[0]][0] if ours else 0
    rank = {x: n + 1 for n, x in enumerate(ours)}
    s = []
    s.append('## 004: "HTTP Server Benchmark Results": a ranking of ten hand-rolled Java HTTP servers\n')
    s.append(quick_note(meta))
    s.append(f"""
### What the document ran

`{DOC004}`: "**Configuration:** 16 workers, 12 wrk threads, 1000 connections, 6s duration",
"**Platform:** Linux (Docker) with 4 CPUs, io_uring enabled"; under "Test Environment": "**JVM**:
OpenJDK 22 with ZGC", "**Memory**: 256MB heap per server", "**Benchmark Tool**: wrk with POST
requests". It names neither the route nor the body of the POST, nor a warm-up or a number of
rounds. "NettyHttpServer" and "SpringBootHttpServer" are listed under "Server Implementations" but are
not in its ranking.

### What we ran

Scaled to this machine's {meta["cores"]} cores: **{meta["workers"]} workers** (the document's 16 on 4
CPUs is 4 per CPU), **{meta["wrk_threads"]} wrk threads** (12 on 4 CPUs is 3 per CPU; here wrk shares
the cores with the server, as it may have there, the document does not say), {int(meta["connections"]):,}
connections as published, {meta["duration"]} s per measurement (published: 6 s); JVM flags `{meta["jvm_flags"]}` (ZGC and a
256 MB heap as published). The POST: a {meta["body"]} B body (`scripts/lib/bench-post.lua`) to
`/ingest`, which reads it and answers `true`: the document's findings speak of "Fire-and-Forget"
("Virtual Threads Add Overhead for Fire-and-Forget", "high-throughput scenarios with minimal
per-request processing"), so a small body with a small acknowledgement (our reading: it says
nothing of what its servers answered). The
servers are started once, all at the same time, and stay up (idle between their turns); each is
warmed up with the measured load in 1 s windows until they plateau, the median of the last three
within {meta["spread_limit"]}% of the median of the three before, as the matrix does (at least 6
windows, cap {meta["warm_cap"]} s; the JIT is not sampled here; the curves are in
`raw/<server>/warmup.tsv`, the outcome in `raw/starts.tsv`), then {meta["rounds"]} round(s) of
one measurement per server, the servers interleaved in each; the table gives the median (min-max). The commands (port shown as PORT):

""")
    s.append(command_block(commands(out)))
    s.append(f"""
### Published ranking beside ours

| published rank | server (document) | technology | published req/s | ratio to its #1 | avg latency | Spindle row | measured req/s, median (min-max) | ratio to our #1 | our rank | avg latency (median) |
|---|---|---|---|---|---|---|---|---|---|---|
""")
    for n, name, rps, tech, lat, mapped in DOC004_RANKING:
        left = f"| {n} | {name} | {tech} | {rps:,} | {rps / 674498:.2f} | {lat} |"
        if mapped is None:
            s.append(left + f" none: {DOC004_NO_COUNTERPART[name]} | — | — | — | — |\n")
        elif mapped not in med:
            s.append(left + f" {mapped} (not run) | — | — | — | — |\n")
        else:
            m, lo, hi, la, errs, unsteady, k = med[mapped]
            marks = ""
            if unsteady:
                marks += " †"
            if errs:
                marks += f" ({errs} errors)"
            s.append(left + f" {mapped} | {fmt(m)} ({fmt(lo)}-{fmt(hi)}){marks} | {m / top:.2f} | {rank[mapped]} | {la:.2f} ms |\n")
    unsteady_rows = [f"{x} ({med[x][5][0]})" for x in servers if med[x][5]]
    s.append(f"""
Ratios are to the top row of each list: the document's IoUringServer (674,498 req/s) and our
{ours[0] if ours else "—"} ({fmt(top)} req/s). One Spindle row stands for TurboHttpServer ("Busy-polling
with selectNow() when active") and ZeroCopyHttpServer ("Direct ByteBuffers with adaptive
busy-polling"): MultiLoopServer with `-Dspindle.busyPoll=true` (direct buffers are Spindle's
default). FastHttpServer is "NIO + VirtualThreads"; VirtualThreadServer is a virtual thread per
connection on blocking sockets. † a server whose warm-up reached the cap without that plateau: {"; ".join(unsteady_rows) if unsteady_rows else "none"}.

### What carries over and what does not

The order of the I/O models can carry over, the absolute figures cannot: the document's top row
ran near 675k req/s on 4 CPUs, while here wrk shares {meta["cores"]} cores with the server, so
the rows are compared by their ratios to the top row, and even those shrink wherever the client
rather than the server is the limit. The document states no warm-up for its 6 s runs; here each
start is warmed up until steady or marked †, so a row that gains from a longer-warmed JIT can
stand higher here than there.
""")
    (out / "section.md").write_text("".join(s))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("doc001", "doc002", "doc004"):
        print("usage: sections.py doc001|doc002|doc004 <part_out_dir>", file=sys.stderr)
        sys.exit(2)
    globals()[sys.argv[1]](Path(sys.argv[2]))


if __name__ == "__main__":
    main()
