#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Helpers of scripts/soak.sh; standard library only (python3 >= 3.9).

  soak.py check --port P --duration S --status FILE [--interval 0.5] [--timeout 10]
      the legitimate client: every interval one request (GET /plaintext, GET /json or POST /echo
      with a random body), answer verified byte for byte; counts in FILE (JSON)
  soak.py sample --pid PID --t0 EPOCH --out CSV --phase-file F [--interval 3] [--max-seconds S]
                 [--check-status F] [--hostile-status F] [--jstat PATH]
      every interval one row of the server's RSS, open fds, sockets, threads, CPU, heap and GC
      counts (from `jstat -gc`, with --jstat PATH) and the clients' progress, until SIGTERM, the
      process ends or S pass
  soak.py report RUN_DIR
      summary.md and chart.svg from a run directory; exit 1 when the verdict is FAIL
  soak.py index DIR
      DIR/README.md: one line per run directory in DIR (results/soak/)

The hostile clients are in soak_hostile.py. The verdict rule is described in VERDICT_RULE below
(and repeated in every summary.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import signal
import socket
import statistics
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True   # no __pycache__ beside the scripts
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (parse_wrk)
import raw_archive  # noqa: E402

HELLO = b"Hello, World!"
HELLO_JSON = b'{"message":"Hello, World!"}'

# --- verdict rule --------------------------------------------------------------------------
# The load phase (wrk + hostile clients + checker, `minutes` long) is cut into quarters by time.
# The first quarter is warm-up (JIT, heap and pools filling) and is not judged. Growth is judged
# by comparing the median of the samples in the LAST quarter ("late") with the median of the
# samples in the SECOND quarter ("early"): medians, because the hostile populations open and
# close in waves and a single sample can land on a crest. A resource that grows without bound
# grows between those windows; one that is merely busy does not.
RSS_GROWTH_PCT, RSS_GROWTH_MIN_MIB = 10.0, 32.0  # late <= early + max(10 %, 32 MiB)
FD_GROWTH_PCT, FD_GROWTH_MIN = 20.0, 32          # late <= early + max(20 %, 32)
THREAD_GROWTH_PCT, THREAD_GROWTH_MIN = 20.0, 8   # late <= early + max(20 %, 8)
FD_RETURN_SLACK = 16    # after the load, once every client has gone: fds <= idle baseline + 16
FD_PROMPT_S = 15        # back to idle later than this after the clients left: a warning (held until a timeout)
CAP_RSS_MIB, CAP_FDS, CAP_THREADS = 2048, 8192, 2048   # hard caps at any sample
MIN_WINDOW_SAMPLES = 3

VERDICT_RULE = f"""\
- **Legitimate requests**: every request of the checker (GET /plaintext, GET /json, POST /echo
  with a random body verified byte for byte, each within its timeout) must succeed, and wrk must
  report zero socket errors (connect, read, write, timeout) and zero non-2xx/3xx answers.
- **Growth**: the load phase is cut into quarters by time; the first quarter is warm-up and not
  judged. For RSS, open file descriptors and threads, the median of the samples in the last
  quarter ("late") must not exceed the median in the second quarter ("early") by more than:
  RSS +{RSS_GROWTH_PCT:g} % or {RSS_GROWTH_MIN_MIB:g} MiB (whichever is larger), fds +{FD_GROWTH_PCT:g} % or {FD_GROWTH_MIN},
  threads +{THREAD_GROWTH_PCT:g} % or {THREAD_GROWTH_MIN}. Medians, because the hostile populations open and close in waves.
  The heap is fixed and pre-touched (`-Xms` = `-Xmx`, `-XX:+AlwaysPreTouch`), so RSS growth
  is native memory (direct buffers, arenas, thread stacks, metaspace), not the heap filling up.
- **Return to idle**: once the load has stopped and every client has closed, the server's open
  fds must come back to the idle count measured before the load, within {FD_RETURN_SLACK}, by the end
  of the cooldown (which outlasts the servers' 60 s idle timeout, so what a server only lets go
  on a timeout counts as let go). Coming back later than {FD_PROMPT_S} s after the clients left is
  a warning, not a failure: the server held connections its peers had already closed or reset.
- **Hard caps**, at every sample: RSS {CAP_RSS_MIB} MiB, {CAP_FDS} fds, {CAP_THREADS} threads.
- The server must stay up through the whole run, and each judged window needs at least
  {MIN_WINDOW_SAMPLES} samples.
"""


# --- the legitimate client -----------------------------------------------------------------

class CheckError(Exception):
    pass


class Checker:
    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.sock: socket.socket | None = None
        self.file = None
        self.ok = 0
        self.failed = 0
        self.by_kind: dict[str, list[int]] = {}
        self.latencies: list[float] = []
        self.failures: list[dict] = []
        self.fresh_connections = 0
        self.started = time.time()

    def drop(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock, self.file = None, None

    def _recv_line(self, deadline: float, limit: int = 65536) -> bytes:
        self._arm(deadline)
        line = self.file.readline(limit)
        if not line:
            raise CheckError("connection closed by the server before the answer")
        if not line.endswith(b"\n"):
            raise CheckError(f"line longer than {limit} bytes or cut: {line[:60]!r}")
        return line

    def _arm(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise CheckError(f"no answer within {self.timeout:g}s")
        self.sock.settimeout(left)

    def request(self, method: str, path: str, body: bytes | None, deadline: float) -> tuple[int, bytes, bool]:
        if self.sock is None:
            self._arm_connect(deadline)
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUser-Agent: spindle-soak-check\r\n"
        if body is not None:
            head += f"Content-Type: application/octet-stream\r\nContent-Length: {len(body)}\r\n"
        data = head.encode("ascii") + b"\r\n" + (body or b"")
        self._arm(deadline)
        self.sock.sendall(data)
        status_line = self._recv_line(deadline)
        parts = status_line.split(None, 2)
        if len(parts) < 2 or parts[0] != b"HTTP/1.1" or not parts[1].isdigit():
            raise CheckError(f"bad status line {status_line[:80]!r}")
        status = int(parts[1])
        length, close, chunked = None, False, False
        while True:
            line = self._recv_line(deadline)
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value.strip())
            elif name == b"connection" and b"close" in value.lower():
                close = True
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if chunked or length is None:
            raise CheckError("answer without Content-Length")
        got = bytearray()
        while len(got) < length:
            self._arm(deadline)
            chunk = self.file.read1(length - len(got))
            if not chunk:
                raise CheckError(f"connection closed after {len(got)} of {length} body bytes")
            got += chunk
        return status, bytes(got), close

    def _arm_connect(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        self.sock = socket.create_connection((self.host, self.port), timeout=max(left, 0.001))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")
        self.fresh_connections += 1

    def one(self) -> None:
        r = random.random()
        if r < 0.35:
            kind, method, path, body, expect = "plaintext", "GET", "/plaintext", None, HELLO
        elif r < 0.7:
            kind, method, path, body, expect = "json", "GET", "/json", None, HELLO_JSON
        else:
            s = random.random()
            size = (0 if s < 0.05 else random.randint(1, 1024) if s < 0.5
                    else random.randint(1025, 64 * 1024) if s < 0.9 else random.randint(64 * 1024 + 1, 1024 * 1024))
            kind, method, path = "echo", "POST", "/echo"
            body = expect = random.randbytes(size)
        # One request in five on a fresh connection; the rest reuse the keep-alive one.
        if random.random() < 0.2:
            self.drop()
        t0 = time.monotonic()
        deadline = t0 + self.timeout
        reason = None
        try:
            status, got, close = self.request(method, path, body, deadline)
            if status != 200:
                reason = f"status {status}"
            elif got != expect:
                reason = f"body differs: {len(got)} bytes, expected {len(expect)}"
            if close:
                self.drop()
        except CheckError as e:
            reason = str(e)
        except socket.timeout:
            reason = f"no answer within {self.timeout:g}s"
        except OSError as e:
            reason = f"{type(e).__name__}: {e}"
        elapsed = time.monotonic() - t0
        counts = self.by_kind.setdefault(kind, [0, 0])
        if reason is None:
            self.ok += 1
            counts[0] += 1
            self.latencies.append(elapsed)
        else:
            self.drop()
            self.failed += 1
            counts[1] += 1
            if len(self.failures) < 100:
                self.failures.append({"t": round(time.time() - self.started, 1), "kind": kind,
                                      "elapsed_s": round(elapsed, 3), "reason": reason})
            print(f"soak check: FAILED {kind}: {reason}", file=sys.stderr)

    def status(self, final: bool) -> dict:
        lat = sorted(self.latencies)

        def pct(p):
            return round(lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000, 2) if lat else None

        return {"final": final, "ok": self.ok, "failed": self.failed, "timeout_s": self.timeout,
                "fresh_connections": self.fresh_connections,
                "by_kind": {k: {"ok": v[0], "failed": v[1]} for k, v in sorted(self.by_kind.items())},
                "latency_ms": {"p50": pct(50), "p99": pct(99), "max": round(lat[-1] * 1000, 2) if lat else None},
                "failures": self.failures}


def write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


class Stop:
    def __init__(self) -> None:
        self.flag = False
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.set)

    def set(self, *_):
        self.flag = True


def cmd_check(args) -> int:
    stop = Stop()
    c = Checker(args.host, args.port, args.timeout)
    end = time.monotonic() + args.duration
    next_at = time.monotonic()
    last_status = 0.0
    while not stop.flag and time.monotonic() < end:
        c.one()
        if time.monotonic() - last_status >= 1.0:
            write_json(args.status, c.status(False))
            last_status = time.monotonic()
        next_at += args.interval
        delay = next_at - time.monotonic()
        if delay < 0:           # a slow answer: no catching up in a burst
            next_at, delay = time.monotonic(), 0
        while delay > 0 and not stop.flag:
            time.sleep(min(delay, 0.25))
            delay = next_at - time.monotonic()
    c.drop()
    write_json(args.status, c.status(True))
    return 0


# --- the sampler ---------------------------------------------------------------------------

SAMPLE_FIELDS = ["t_s", "epoch", "phase", "rss_mib", "rss_anon_mib", "fds", "sockets", "threads", "cpu_s",
                 "heap_used_mib", "old_used_mib", "young_gcs", "full_gcs", "hostile_open", "check_ok",
                 "check_failed"]


def proc_status(pid: int) -> dict:
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "Threads", "State"):
                out[key] = value.split()[0] if value.split() else ""
    return out


def fd_counts(pid: int) -> tuple[int, int]:
    fds = sockets = 0
    base = f"/proc/{pid}/fd"
    for name in os.listdir(base):
        fds += 1
        try:
            if os.readlink(f"{base}/{name}").startswith("socket:"):
                sockets += 1
        except OSError:
            pass
    return fds, sockets


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class JstatGc:
    """The JDK's `jstat -gc PID INTERVAL_MS`, run once for the whole soak (one JVM attach, not one
    per sample), its latest line kept: heap spaces in KB and collection counts, as the JVM reports
    them to jstat (G1 and Parallel update them at each collection, so they lag)."""

    def __init__(self, jstat: str | None, pid: int, interval_s: float) -> None:
        self.latest: dict[str, float] = {}
        self.proc = None
        if not jstat:
            return
        import subprocess
        import threading
        try:
            self.proc = subprocess.Popen([jstat, "-gc", str(pid), f"{max(int(interval_s * 1000), 100)}ms"],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        header: list[str] = []
        for line in self.proc.stdout:
            fields = line.split()
            if not fields:
                continue
            if fields[0] == "S0C":
                header = fields
                continue
            if header and len(fields) == len(header):
                values = {}
                for name, raw in zip(header, fields):
                    try:
                        values[name] = float(raw)
                    except ValueError:
                        pass   # "-" where a collector has no such space
                self.latest = values

    def heap_old_counts(self) -> tuple[str, str, str, str]:
        """Heap used and old generation used (MiB), young and full collections; blanks before the first line."""
        v = self.latest
        if not v:
            return "", "", "", ""
        used = sum(v.get(k, 0.0) for k in ("S0U", "S1U", "EU", "OU"))
        return (f"{used / 1024:.1f}", f"{v.get('OU', 0.0) / 1024:.1f}",
                str(int(v["YGC"])) if "YGC" in v else "", str(int(v["FGC"])) if "FGC" in v else "")

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()


def read_json(path: str | None) -> dict:
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def cmd_sample(args) -> int:
    stop = Stop()
    end = time.monotonic() + args.max_seconds
    gc = JstatGc(args.jstat, args.pid, args.interval)
    try:
        sample_rows(args, stop, end, gc)
    finally:
        gc.close()
    return 0


def sample_rows(args, stop: Stop, end: float, gc: JstatGc) -> None:
    mib = 1024.0
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(SAMPLE_FIELDS)
        next_at = time.monotonic()
        while not stop.flag and time.monotonic() < end:
            now = time.time()
            try:
                st = proc_status(args.pid)
                if st.get("State", "") in ("Z", "X"):
                    break
                fds, socks = fd_counts(args.pid)
                cpu = cpu_seconds(args.pid)
            except OSError:
                break   # the process is gone
            heap, old, ygc, fgc = gc.heap_old_counts()
            try:
                phase = Path(args.phase_file).read_text(encoding="utf-8").strip() or "?"
            except OSError:
                phase = "?"
            hostile, check = read_json(args.hostile_status), read_json(args.check_status)
            w.writerow([f"{now - args.t0:.1f}", f"{now:.1f}", phase,
                        f"{int(st.get('VmRSS', 0)) / mib:.1f}", f"{int(st.get('RssAnon', 0)) / mib:.1f}",
                        fds, socks, st.get("Threads", ""), f"{cpu:.2f}", heap, old, ygc, fgc,
                        hostile.get("open_total", ""), check.get("ok", ""), check.get("failed", "")])
            f.flush()
            next_at += args.interval
            while not stop.flag and time.monotonic() < next_at:
                time.sleep(min(0.2, max(next_at - time.monotonic(), 0)))


# --- the report ----------------------------------------------------------------------------

def read_meta(run: Path) -> dict:
    meta = {}
    p = run / "meta.tsv"
    if p.exists():
        for line in p.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("\t")
            if key:
                meta[key] = value
    return meta


def read_samples(run: Path) -> list[dict]:
    rows = []
    p = run / "samples.csv"
    if not p.exists():
        return rows
    with open(p, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            row = {"phase": r["phase"]}
            for k in SAMPLE_FIELDS:
                if k == "phase":
                    continue
                try:
                    row[k] = float(r[k]) if r[k] != "" else None
                except (ValueError, KeyError):
                    row[k] = None
            rows.append(row)
    return rows


def stats3(values: list[float]) -> tuple[float, float, float] | None:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return min(values), statistics.median(values), max(values)


def fmt_num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def fmt3(t, digits=0) -> str:
    if t is None:
        return "–"
    return " / ".join(fmt_num(v, digits) for v in t)


class Verdict:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str]] = []   # name, rule, measured, "ok" | "FAIL" | "warn"

    def add(self, name: str, rule: str, measured: str, ok: bool, warn: bool = False) -> None:
        self.rows.append((name, rule, measured, "FAIL" if not ok else "warn" if warn else "ok"))

    @property
    def passed(self) -> bool:
        return bool(self.rows) and all(state != "FAIL" for *_, state in self.rows)

    def failures(self) -> list[str]:
        return [f"{name}: {measured}" for name, _, measured, state in self.rows if state == "FAIL"]

    def warnings(self) -> list[str]:
        return [f"{name}: {measured}" for name, _, measured, state in self.rows if state == "warn"]


METRICS = [("rss_mib", "RSS (MiB)", RSS_GROWTH_PCT, RSS_GROWTH_MIN_MIB, CAP_RSS_MIB, 1),
           ("fds", "open fds", FD_GROWTH_PCT, FD_GROWTH_MIN, CAP_FDS, 0),
           ("threads", "threads", THREAD_GROWTH_PCT, THREAD_GROWTH_MIN, CAP_THREADS, 0)]


def windows(samples: list[dict], load_s: float) -> dict[str, list[dict]]:
    load = [s for s in samples if s["phase"] == "load" and s["t_s"] is not None and 0 <= s["t_s"] <= load_s + 5]
    return {
        "idle": [s for s in samples if s["phase"] == "idle"],
        "warmup": [s for s in load if s["t_s"] < load_s * 0.25],
        "early": [s for s in load if load_s * 0.25 <= s["t_s"] < load_s * 0.5],
        "late": [s for s in load if s["t_s"] >= load_s * 0.75],
        "load": load,
        "after": [s for s in samples if s["phase"] == "cooldown"],
    }


def judge(meta: dict, samples: list[dict], wrk: bench.WrkResult | None, check: dict) -> tuple[Verdict, dict]:
    v = Verdict()
    load_s = float(meta.get("load_seconds", 0) or 0)
    w = windows(samples, load_s)

    # Legitimate traffic.
    ok, failed = int(check.get("ok", 0)), int(check.get("failed", 0))
    v.add("checker", "every request answered correctly, > 0 requests",
          f"{ok:,} ok, {failed:,} failed", failed == 0 and ok > 0)
    if wrk is None or wrk.requests is None:
        v.add("wrk", "ran and reported", "no parsable wrk output", False)
    else:
        errs = wrk.socket_errors
        v.add("wrk", "0 socket errors, 0 non-2xx/3xx",
              f"{wrk.requests:,} requests, socket errors {errs:,} (connect {wrk.connect}, read {wrk.read}, "
              f"write {wrk.write}, timeout {wrk.timeout}), non-2xx {wrk.non2xx:,}",
              errs == 0 and wrk.non2xx == 0 and wrk.requests > 0)

    # The server itself.
    exit_during = meta.get("server_exit_during_run", "")
    v.add("server up", "alive until the script stops it",
          "alive" if not exit_during else f"exited: {exit_during}", not exit_during)

    # Growth.
    enough = len(w["early"]) >= MIN_WINDOW_SAMPLES and len(w["late"]) >= MIN_WINDOW_SAMPLES
    if not enough:
        v.add("samples", f">= {MIN_WINDOW_SAMPLES} per judged window",
              f"early {len(w['early'])}, late {len(w['late'])}", False)
    for key, label, pct, minimum, cap, digits in METRICS:
        early = stats3([s[key] for s in w["early"]])
        late = stats3([s[key] for s in w["late"]])
        if enough and early and late:
            limit = early[1] + max(early[1] * pct / 100.0, minimum)
            unit = " MiB" if key == "rss_mib" else ""
            v.add(f"{label}: growth", f"late median <= early median + max({pct:g} %, {minimum:g}{unit})",
                  f"early {fmt_num(early[1], digits)} → late {fmt_num(late[1], digits)} (limit {fmt_num(limit, digits)})",
                  late[1] <= limit)
        peak = stats3([s[key] for s in samples])
        if peak:
            v.add(f"{label}: cap", f"<= {cap:,} at every sample", f"max {fmt_num(peak[2], digits)}", peak[2] <= cap)

    # Return to idle.
    idle_fds = stats3([s["fds"] for s in w["idle"]])
    after = [s for s in w["after"] if s["fds"] is not None and s["t_s"] is not None]
    if idle_fds and after:
        limit = idle_fds[1] + FD_RETURN_SLACK
        last = after[-1]["fds"]
        back = next((s for i, s in enumerate(after) if all(x["fds"] <= limit for x in after[i:])), None)
        secs = None if back is None else back["t_s"] - after[0]["t_s"]
        measured = (f"idle {fmt_num(idle_fds[1])}; when the clients had left {fmt_num(after[0]['fds'])}; "
                    f"{after[-1]['t_s'] - after[0]['t_s']:.0f} s later {fmt_num(last)}")
        if secs is not None:
            measured += f"; back to idle after {secs:.0f} s"
        v.add("open fds: back to idle", f"by the end of the cooldown <= idle median + {FD_RETURN_SLACK}; "
              f"later than {FD_PROMPT_S} s is a warning", measured, last <= limit,
              warn=secs is None or secs > FD_PROMPT_S)
    else:
        v.add("open fds: back to idle", "samples before and after the load", "missing", False)
    return v, w


def draw_chart(run: Path, samples: list[dict], load_s: float, title: str, subtitle: str) -> None:
    """chart.svg: RSS, open fds and threads over time, the judged windows shaded."""
    import charts  # matplotlib: only the report draws

    def series(key: str, label: str, dashed: bool = False):
        return charts.Series(label, [(s["t_s"], s[key]) for s in samples
                                     if s["t_s"] is not None and s[key] is not None], dashed)

    panels = [("RSS (MiB)", "#4c78a8", [series("rss_mib", "RSS"),
                                        series("old_used_mib", "old generation used, as of the last GC", True)]),
              ("open file descriptors", "#f58518", [series("fds", "open fds"),
                                                    series("hostile_open", "connections the hostile clients hold", True)]),
              ("threads", "#54a24b", [series("threads", "threads")])]
    shaded = [(0, load_s * 0.25, "#eeeeee", "warm-up (not judged)"),
              (load_s * 0.25, load_s * 0.5, "#dbe9f6", "early window"),
              (load_s * 0.75, load_s, "#fde2c8", "late window")]
    charts.timeline_chart(run / "chart", title, subtitle, panels, shaded, [0.0, load_s],
                          "seconds since the load started (dashed lines: load start and end)")


def md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def cmd_report(args) -> int:
    run = Path(args.run_dir)
    meta = read_meta(run)
    samples = read_samples(run)
    wrk = None
    if (run / "wrk.txt").exists():
        wrk = bench.parse_wrk((run / "wrk.txt").read_text(encoding="utf-8", errors="replace"))
    check = read_json(str(run / "check.json"))
    hostile = read_json(str(run / "hostile.json"))
    verdict, w = judge(meta, samples, wrk, check)
    load_s = float(meta.get("load_seconds", 0) or 0)
    server = meta.get("server", "?")
    word = "PASS" if verdict.passed else "FAIL"

    subtitle = (f"{meta.get('minutes', '?')} min of wrk ({meta.get('wrk_connections', '?')} connections) + hostile clients + "
                f"checker; verdict {word}; {meta.get('started', '')} UTC")
    draw_chart(run, samples, load_s, f"Soak: {server}", subtitle)

    L = []
    L.append(f"# Soak: {server} — {word}")
    L.append("")
    if verdict.passed:
        L.append("Flat RSS, fd and thread curves, and every legitimate request succeeded.")
    else:
        L.append("Failed: " + "; ".join(md(f) for f in verdict.failures()))
    if verdict.warnings():
        L.append("")
        L.append("Warnings: " + "; ".join(md(f) for f in verdict.warnings()))
    L.append("")
    L.append("![RSS, open fds and threads over time](chart.svg)")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for key, label in (("server", "server"), ("main_class", "main class"), ("server_props", "extra JVM arguments"),
                       ("workers", "workers"), ("command", "command"), ("started", "started (UTC)"),
                       ("finished", "finished (UTC)"), ("commit", "commit"), ("machine", "machine"),
                       ("kernel", "kernel"), ("os", "OS"), ("shared", "machine shared?"),
                       ("loadavg_start", "load average at start"), ("loadavg_end", "load average at end"),
                       ("jdk", "JDK"), ("jvm_flags", "JVM flags"), ("server_config", "server timeouts"),
                       ("wrk_command", "wrk"), ("durations", "phases"), ("sample_interval", "sample interval"),
                       ("ready_line", "ready line"), ("stop", "stop")):
        value = meta.get(key, "")
        if value:
            if key in ("command", "jvm_flags", "wrk_command", "server_props", "main_class", "commit"):
                value = f"`{value}`"
            L.append(f"| {label} | {md(value)} |")
    L.append("")

    L.append("## Verdict")
    L.append("")
    L.append("| check | rule | measured | |")
    L.append("|---|---|---|---|")
    for name, rule, measured, state in verdict.rows:
        L.append(f"| {md(name)} | {md(rule)} | {md(measured)} | {'**FAIL**' if state == 'FAIL' else state} |")
    L.append("")

    L.append("## Resources (min / median / max)")
    L.append("")
    L.append(f"Sampled every {meta.get('sample_interval', '?')} from `/proc/<pid>/status` (VmRSS, Threads) and "
             "`/proc/<pid>/fd`; GC counts and heap occupancy from the JDK's `jstat -gc` (one attach for the run; "
             "the collectors update them at each collection, so they lag). All numbers: [samples.csv](samples.csv).")
    L.append("")
    names = [("idle", "idle, before the load"), ("warmup", "warm-up (1st quarter)"), ("early", "early (2nd quarter)"),
             ("late", "late (last quarter)"), ("after", "after the load")]
    L.append("| metric | " + " | ".join(f"{label} ({len(w[k])} samples)" for k, label in names) + " |")
    L.append("|---|" + "---:|" * len(names))
    for key, label, digits in (("rss_mib", "RSS (MiB)", 1), ("fds", "open fds", 0), ("sockets", "of which sockets", 0),
                               ("threads", "threads", 0), ("old_used_mib", "old gen used, as of the last GC (MiB)", 0),
                               ("hostile_open", "hostile connections held", 0)):
        L.append(f"| {label} | " + " | ".join(fmt3(stats3([s[key] for s in w[k]]), digits) for k, _ in names) + " |")
    gcs = [s for s in samples if s["young_gcs"] is not None]
    if gcs:
        cpu = [s["cpu_s"] for s in w["load"] if s["cpu_s"] is not None]
        L.append("")
        after_full = [s["old_used_mib"] for prev, s in zip(gcs, gcs[1:])
                      if s["full_gcs"] != prev["full_gcs"] and s["old_used_mib"] is not None]
        text = (f"GCs during the run: {fmt_num(gcs[-1]['young_gcs'] - gcs[0]['young_gcs'])} young, "
                f"{fmt_num(gcs[-1]['full_gcs'] - gcs[0]['full_gcs'])} full. ")
        if after_full:
            text += ("Old gen at the first sample after each full GC (live data then): "
                     + ", ".join(f"{x:.0f}" for x in after_full[:12]) + (" …" if len(after_full) > 12 else "")
                     + " MiB. ")
        text += f"Server CPU during the load: {fmt_num(cpu[-1] - cpu[0] if len(cpu) > 1 else None, 1)} s."
        L.append(text)
    L.append("")

    L.append("## Legitimate traffic")
    L.append("")
    if wrk is not None and wrk.requests is not None:
        L.append(f"**wrk** (`wrk.txt`): {wrk.requests:,} requests in {fmt_num(wrk.seconds, 1)} s "
                 f"({fmt_num(wrk.rps)} req/s), latency avg {fmt_num(wrk.latency_avg_ms, 2)} ms, "
                 f"p99 {fmt_num(wrk.latency_p99_ms, 2)} ms; socket errors: connect {wrk.connect}, read {wrk.read}, "
                 f"write {wrk.write}, timeout {wrk.timeout}; non-2xx/3xx: {wrk.non2xx}. "
                 f"Mix: {meta.get('wrk_mix', '')}.")
    else:
        L.append("**wrk**: no parsable output (see `wrk.txt`).")
    L.append("")
    lat = check.get("latency_ms", {})
    L.append(f"**checker** (`check.json`): one request every {meta.get('check_interval', '?')} s, timeout "
             f"{check.get('timeout_s', '?')} s, one in five on a fresh connection: {check.get('ok', 0):,} ok, "
             f"{check.get('failed', 0):,} failed; latency p50 {lat.get('p50')} ms, p99 {lat.get('p99')} ms, "
             f"max {lat.get('max')} ms.")
    L.append("")
    if check.get("by_kind"):
        L.append("| request | ok | failed |")
        L.append("|---|---:|---:|")
        for k, c in check["by_kind"].items():
            L.append(f"| {md(k)} | {c['ok']:,} | {c['failed']:,} |")
        L.append("")
    for f in check.get("failures", [])[:20]:
        L.append(f"- t={f['t']} s, {md(f['kind'])}, after {f['elapsed_s']} s: {md(f['reason'])}")
    if check.get("failures"):
        L.append("")

    L.append("## Hostile clients")
    L.append("")
    L.append("What each behaviour saw (counts over the whole run; `hostile.json`). These are observations, "
             "not part of the verdict, except through the resource curves and the legitimate requests.")
    L.append("")
    L.append("| behaviour | counts |")
    L.append("|---|---|")
    for b, counts in hostile.get("counts", {}).items():
        L.append(f"| {md(b)} | " + ", ".join(f"{md(k)} {n:,}" for k, n in counts.items()) + " |")
    L.append("")
    for name, lt in hostile.get("lifetimes", {}).items():
        if lt.get("n"):
            L.append(f"- {md(name)}: {lt['n']:,} connections, lifetime min {lt['min_s']} s, "
                     f"mean {lt['mean_s']} s, max {lt['max_s']} s")
    L.append("")
    L.append(f"Behaviours: {meta.get('hostile_doc', '')}")
    L.append("")

    L.append("## Server output")
    L.append("")
    for name in ("server.out", "server.err"):
        p = run / name
        if p.exists():
            lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
            L.append(f"- `{name}`: {len(lines):,} lines" + (f"; first: `{md(lines[0][:160])}`" if lines else ""))
    if meta.get("server_log_note"):
        L.append(f"- {md(meta['server_log_note'])}")
    L.append("")

    L.append("## How the verdict is decided")
    L.append("")
    L.append(VERDICT_RULE)
    (run / "summary.md").write_text("\n".join(L).rstrip() + "\n", encoding="utf-8")

    print(f"soak {server}: {word}", file=sys.stderr)
    for name, rule, measured, state in verdict.rows:
        print(f"  {state:4} {name}: {measured}", file=sys.stderr)
    return 0 if verdict.passed else 1


def run_row(run: Path) -> tuple[str, list[str]] | None:
    """One line of the results/soak index for a run directory, and the run's warnings."""
    meta = read_meta(run)
    samples = read_samples(run)
    if not meta or not samples:
        return None
    wrk = bench.parse_wrk((run / "wrk.txt").read_text(encoding="utf-8", errors="replace")) if (run / "wrk.txt").exists() else None
    check = read_json(str(run / "check.json"))
    verdict, w = judge(meta, samples, wrk, check)
    word = "PASS" if verdict.passed else "**FAIL**"
    if verdict.passed and verdict.warnings():
        word = "PASS (warning)"

    def span(key, digits=0):
        early, late = stats3([s[key] for s in w["early"]]), stats3([s[key] for s in w["late"]])
        return f"{fmt_num(early[1], digits)} → {fmt_num(late[1], digits)}" if early and late else "–"

    idle = stats3([s["fds"] for s in w["idle"]])
    after = [s for s in w["after"] if s["fds"] is not None]
    back = "–"
    if idle and after:
        limit = idle[1] + FD_RETURN_SLACK
        first = next((s for i, s in enumerate(after) if all(x["fds"] <= limit for x in after[i:])), None)
        back = (f"{fmt_num(idle[1])} → {fmt_num(after[0]['fds'])} → {fmt_num(after[-1]['fds'])}"
                + (f" ({first['t_s'] - after[0]['t_s']:.0f} s)" if first else " (not back)"))
    legit = f"{int(check.get('ok', 0)):,} / {int(check.get('failed', 0)):,}"
    wrk_text = "–" if wrk is None or wrk.requests is None else f"{wrk.requests:,} / {wrk.socket_errors + wrk.non2xx:,}"
    line = (f"| [{run.name}]({run.name}/summary.md) | {md(meta.get('server', '?'))} | {md(meta.get('minutes', '?'))} | "
            f"{word} | {legit} | {wrk_text} | {span('rss_mib', 1)} | {span('fds')} | {span('threads')} | {back} |")
    notes = [f"{run.name}: {md(x)}" for x in verdict.failures() + verdict.warnings()]
    return line, notes


def cmd_index(args) -> int:
    root = Path(args.dir)
    runs = [r for r in (run_row(run) for run in sorted((p for p in root.iterdir() if p.is_dir()), reverse=True)) if r]
    rows = [line for line, _ in runs]
    notes = [n for _, ns in runs for n in ns]
    L = ["# Soak results", "",
         "One directory per run of `scripts/soak.sh [minutes] [server]` (newest first); each has `summary.md` "
         "(environment, verdict, numbers, hostile-client counts), `chart.svg` and `samples.csv`. "
         "Early and late are the medians of the second and the last quarter of the load; "
         "\"fds after\" is idle → when the clients had left → end of the cooldown (seconds until back to idle). "
         "This page is rewritten by every run under `results/soak/` (`python3 scripts/lib/soak.py index results/soak`).",
         "",
         "| run | server | minutes | verdict | checker ok / failed | wrk requests / errors | RSS MiB early → late "
         "| fds early → late | threads early → late | fds after |",
         "|---|---|---:|---|---:|---:|---:|---:|---:|---|"]
    L += rows or ["| (no run yet) | | | | | | | | | |"]
    if notes:
        L += ["", "Failures and warnings (details in each run's `summary.md`):", ""] + [f"- {n}" for n in notes]
    (root / "README.md").write_text("\n".join(L) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check", help="the legitimate client")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--duration", type=float, required=True)
    p.add_argument("--status", required=True)
    p.add_argument("--interval", type=float, default=0.5)
    p.add_argument("--timeout", type=float, default=10.0)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("sample", help="sample a server process")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--t0", type=float, required=True, help="epoch seconds of the load start (t = 0)")
    p.add_argument("--out", required=True)
    p.add_argument("--phase-file", required=True)
    p.add_argument("--interval", type=float, default=3.0)
    p.add_argument("--max-seconds", type=float, default=7200.0)
    p.add_argument("--check-status")
    p.add_argument("--hostile-status")
    p.add_argument("--jstat", help="the JDK's jstat, for heap and GC counts (without it those columns stay blank)")
    p.set_defaults(fn=cmd_sample)
    p = sub.add_parser("report", help="summary.md and chart.svg of a run directory")
    p.add_argument("run_dir")
    p.set_defaults(fn=cmd_report)
    p = sub.add_parser("index", help="README.md with one line per run directory in DIR")
    p.add_argument("dir")
    p.set_defaults(fn=cmd_index)
    args = ap.parse_args(argv)
    if args.cmd != "report":
        return args.fn(args)
    with raw_archive.extracted(Path(args.run_dir)):
        return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
