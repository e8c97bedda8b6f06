# SPDX-License-Identifier: Apache-2.0
"""Idle WebSocket connections against one server's /ws/echo (scripts/websocket-idle.sh), and the report.

    python3 ws_idle.py run --port P --pid PID --jcmd JCMD --connections N --out client.json
    python3 ws_idle.py report RUN_DIR       summary.md and summary.tsv from RUN_DIR/raw/*/client.json

run: a warm-up (a few sockets opened, echoed, closed), then the server's baseline (heap used after a
full GC by `jcmd PID GC.run` + `GC.heap_info`, VmRSS and Threads from /proc/PID/status); N sockets
opened BATCH at a time (permessage-deflate offered, no client pings), each within OPEN_TIMEOUT;
IDLE_SECONDS of quiet, the server's CPU over CPU_WINDOW more (in CPU_SLICE slices), then the same measures again; PROBES
random sockets each send a text message and must read its echo; a plain GET /plaintext on a new
connection must answer 200 (the server's connection limit must leave room for it); every socket is closed with 1000 and must read 1000 back; the heap after
a full GC once more. Everything goes into one JSON file; the whole run is bounded by DEADLINE.

With --kind sse the connections are GET /sse/broadcast event streams instead (no compression, no
warm-up echo): each must answer 200 text/event-stream; a probe is one event published by POST
/sse/publish that PROBES random streams must read; a close is the client closing its socket.

report: one row per server, judged by verdict() (the rule is RULE, printed in summary.md).
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

KIB = 1024
MIB = 1024 * 1024
BATCH = 200
OPEN_TIMEOUT = 15.0
IO_TIMEOUT = 10.0
IDLE_SECONDS = 10.0
# One whole ping interval of the server (WebSocket.Options' default, 30 s): each idle socket gets one
# ping and answers one pong in it, whenever it opened; a shorter window holds anything from none of
# those pings to all of them, depending on how long the opening took.
CPU_WINDOW = 30.0
CPU_SLICE = 5.0
PROBES = 200
WARMUP = 20
JCMD_TIMEOUT = 60.0
DEADLINE = 900.0

# The pass rule's thresholds (also in the script's header and in every summary.md).
MAX_IDLE_CPU_PCT = 5.0            # of one core, over CPU_WINDOW seconds with every socket idle
MAX_HEAP_PER_CONN = 12 * KIB      # 10,000 idle sockets in at most 120 MiB: under half of -Xmx256m
MAX_RELEASE_DELTA = 10 * MIB      # heap after closing them all, over the baseline
RULE = (f"PASS when every connection opened, every probe read its echo, every close read 1000, "
        f"GET /plaintext answered 200 while they were open, the server's output holds no "
        f"OutOfMemoryError and it stayed up, its idle CPU was under {MAX_IDLE_CPU_PCT:g} % of one core, "
        f"heap per idle connection (after a full GC) at most {MAX_HEAP_PER_CONN // KIB} KiB, and the heap "
        f"after closing them all within {MAX_RELEASE_DELTA // MIB} MiB of the baseline.")

_USED = re.compile(r"\btotal\s+(\d+)([KMG]), used\s+(\d+)([KMG])")
_UNIT = {"K": KIB, "M": MIB, "G": 1024 * MIB}


def parse_heap_used(text: str) -> int | None:
    """Bytes used by the Java heap in `jcmd GC.heap_info` output: the sum of its generations' (or
    region heap's) "total ..., used ..." lines; Metaspace's lines have no "total" and are left out."""
    used, found = 0, False
    for line in text.splitlines():
        if "Metaspace" in line or "class space" in line:
            continue
        m = _USED.search(line)
        if m:
            used += int(m.group(3)) * _UNIT[m.group(4)]
            found = True
    return used if found else None


def parse_status(text: str) -> dict:
    """VmRSS (bytes) and Threads from /proc/PID/status."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "VmRSS":
            out["rss"] = int(value.split()[0]) * KIB
        elif key == "Threads":
            out["threads"] = int(value.split()[0])
    return out


def parse_cpu_ticks(stat: str) -> int:
    """utime + stime (clock ticks) from /proc/PID/stat; the command name may hold spaces."""
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])   # fields 14 and 15 of the whole line


def cpu_percent(ticks: int, seconds: float, clk_tck: int) -> float:
    return 100.0 * ticks / clk_tck / seconds if seconds > 0 else 0.0


def per_conn(before: int | None, after: int | None, n: int) -> float | None:
    if before is None or after is None or n <= 0:
        return None
    return (after - before) / n


def verdict(r: dict) -> tuple[bool, list[str]]:
    """Whether one server's run (client.json plus the script's oom/alive fields) passes, and why not."""
    why = []
    if not r.get("started", True):
        return False, ["did not start"]
    if "error" in r:
        why.append(f"client error: {r['error']}")
    n, opened = r.get("connections", 0), r.get("opened", 0)
    if opened < n:
        why.append(f"{n - opened} of {n} connections failed")
    probes = r.get("probes", {})
    if probes.get("ok", 0) < probes.get("sent", 0) or not probes:
        why.append(f"{probes.get('ok', 0)} of {probes.get('sent', 0)} probes echoed")
    health = r.get("health", {})
    if health.get("status") != 200:
        why.append(f"GET /plaintext: {health.get('status') or health.get('error', 'not run')}")
    closes = r.get("closes", {})
    if closes.get("ok", 0) < opened:
        what = "closes failed" if r.get("kind") == "sse" else "closes did not read 1000"
        why.append(f"{opened - closes.get('ok', 0)} {what} {closes.get('codes', {})}")
    if r.get("oom"):
        why.append("OutOfMemoryError in the server's output")
    if not r.get("alive", True):
        why.append("the server exited")
    cpu = r.get("idle_cpu_pct")
    if cpu is None or cpu >= MAX_IDLE_CPU_PCT:
        why.append(f"idle CPU {fmt(cpu, '.1f')} % (limit {MAX_IDLE_CPU_PCT:g} %)")
    hpc = r.get("heap_per_conn")
    if hpc is None or hpc > MAX_HEAP_PER_CONN:
        why.append(f"heap per connection {fmt_bytes(hpc)} (limit {MAX_HEAP_PER_CONN // KIB} KiB)")
    base, after = r.get("base", {}).get("heap"), r.get("closed", {}).get("heap")
    if base is None or after is None or after - base > MAX_RELEASE_DELTA:
        delta = None if base is None or after is None else after - base
        why.append(f"heap after close {fmt_bytes(delta)} over baseline (limit {MAX_RELEASE_DELTA // MIB} MiB)")
    return not why, why


def fmt(v, spec: str) -> str:
    return "n/a" if v is None else format(v, spec)


def fmt_bytes(v) -> str:
    if v is None:
        return "n/a"
    if abs(v) >= MIB:
        return f"{v / MIB:.1f} MiB"
    if abs(v) >= KIB:
        return f"{v / KIB:.1f} KiB"
    return f"{v:.0f} B"


# --- run ---------------------------------------------------------------------------------------

def raise_nofile(need: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(max(need, soft), hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def read_proc(pid: int, name: str) -> str:
    return Path(f"/proc/{pid}/{name}").read_text()


def sample(pid: int, jcmd: str, gc: bool = True) -> dict:
    """RSS and threads now, then (gc) the heap used after a full GC."""
    out = parse_status(read_proc(pid, "status"))
    if gc:
        subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, timeout=JCMD_TIMEOUT, check=True)
        info = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True,
                              timeout=JCMD_TIMEOUT, check=True).stdout
        out["heap"] = parse_heap_used(info)
        out["heap_info"] = info.strip().splitlines()
    return out


def alive(pid: int) -> bool:
    try:
        stat = read_proc(pid, "stat")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


async def open_one(url: str, compression: str | None):
    import websockets
    return await websockets.connect(url, compression=compression, ping_interval=None, max_size=1 << 20,
                                    open_timeout=OPEN_TIMEOUT, close_timeout=IO_TIMEOUT)


async def open_all(url: str, n: int, compression: str | None = "deflate") -> tuple[list, dict]:
    sockets, failures = [], {}
    for start in range(0, n, BATCH):
        results = await asyncio.gather(*(open_one(url, compression) for _ in range(start, min(n, start + BATCH))),
                                       return_exceptions=True)
        for res in results:
            if isinstance(res, BaseException):
                key = f"{type(res).__name__}: {res}"[:160]
                failures[key] = failures.get(key, 0) + 1
            else:
                sockets.append(res)
    return sockets, failures


async def echo(ws, text: str) -> bool:
    await asyncio.wait_for(ws.send(text), IO_TIMEOUT)
    return await asyncio.wait_for(ws.recv(), IO_TIMEOUT) == text


async def close_one(ws) -> int | None:
    await asyncio.wait_for(ws.close(code=1000, reason="idle test done"), IO_TIMEOUT + 5)
    return ws.close_code


class EventStream:
    """One GET /sse/broadcast held open: its reader and writer once the head read 200."""

    def __init__(self, reader, writer, head: str):
        self.reader, self.writer, self.head = reader, writer, head

    @property
    def open(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()


async def open_stream(port: int) -> EventStream:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), OPEN_TIMEOUT)
    try:
        writer.write(b"GET /sse/broadcast HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), OPEN_TIMEOUT)).decode("latin-1")
    except BaseException:
        writer.close()
        raise
    status = head.split("\r\n", 1)[0].split()
    if len(status) < 2 or status[1] != "200" or "text/event-stream" not in head.lower():
        writer.close()
        raise ConnectionError(f"not an event stream: {head.splitlines()[0] if head else 'no head'}")
    return EventStream(reader, writer, head)


async def open_streams(port: int, n: int) -> tuple[list, dict]:
    streams, failures = [], {}
    for start in range(0, n, BATCH):
        for res in await asyncio.gather(*(open_stream(port) for _ in range(start, min(n, start + BATCH))),
                                        return_exceptions=True):
            if isinstance(res, BaseException):
                key = f"{type(res).__name__}: {res}"[:160]
                failures[key] = failures.get(key, 0) + 1
            else:
                streams.append(res)
    return streams, failures


async def hears(stream: EventStream, text: str) -> bool:
    """Whether the stream reads a data line holding text (chunk-size lines and comments pass by)."""
    want = text.encode()
    while True:
        line = await asyncio.wait_for(stream.reader.readline(), IO_TIMEOUT)
        if not line:
            return False
        if line.startswith(b"data:") and want in line:
            return True


async def publish(port: int, text: str) -> int | None:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), IO_TIMEOUT)
    body = text.encode()
    writer.write(b"POST /sse/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: "
                 + str(len(body)).encode() + b"\r\n\r\n" + body)
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n"), IO_TIMEOUT)).decode("latin-1").split()
    writer.close()
    return int(head[1]) if len(head) > 1 and head[1].isdigit() else None


async def probe_streams(port: int, chosen: list) -> dict:
    listening = [asyncio.ensure_future(hears(s, "probe \u2603")) for s in chosen]
    status = await publish(port, "probe \u2603")
    results = await asyncio.gather(*listening, return_exceptions=True)
    return {"sent": len(chosen), "ok": sum(res is True for res in results), "publish_status": status,
            "errors": sorted({f"{type(e).__name__}: {e}"[:160] for e in results if isinstance(e, BaseException)})}


async def close_stream(stream: EventStream) -> str:
    stream.writer.close()
    await asyncio.wait_for(stream.writer.wait_closed(), IO_TIMEOUT)
    return "closed"


async def health(port: int) -> dict:
    t0 = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), IO_TIMEOUT)
        writer.write(b"GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(4096), IO_TIMEOUT)
        ms = round(1000 * (time.monotonic() - t0), 1)
        writer.close()
        text = answer.decode("latin-1")
        parts = text.split("\r\n", 1)[0].split()
        # the body too: a 503 says which limit answered it
        return {"status": int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None,
                "answer": text[:300], "ms": ms}
    except (OSError, asyncio.TimeoutError) as e:
        return {"status": None, "error": f"{type(e).__name__}: {e}"}


async def run(args, r: dict) -> None:
    url = f"ws://127.0.0.1:{args.port}/ws/echo"
    pid, jcmd, n = args.pid, args.jcmd, args.connections
    clk = os.sysconf("SC_CLK_TCK")
    loop = asyncio.get_running_loop()

    def measure(gc=True):
        return loop.run_in_executor(None, sample, pid, jcmd, gc)

    sse = args.kind == "sse"
    compression = None if args.compression == "none" or sse else args.compression
    if sse:
        warm, fails = await open_streams(args.port, WARMUP)
        r["warmup"] = {"opened": len(warm), "failures": fails}
        await asyncio.gather(*(close_stream(s) for s in warm), return_exceptions=True)
    else:
        warm, fails = await open_all(url, WARMUP, compression)
        r["warmup"] = {"opened": len(warm), "failures": fails,
                       "echoed": sum(await asyncio.gather(*(echo(ws, "warm-up") for ws in warm)))}
        await asyncio.gather(*(close_one(ws) for ws in warm), return_exceptions=True)
    await asyncio.sleep(1)
    r["base"] = await measure()

    t0 = time.monotonic()
    sockets, fails = await (open_streams(args.port, n) if sse else open_all(url, n, compression))
    r["open_seconds"] = round(time.monotonic() - t0, 2)
    r["opened"], r["open_failures"] = len(sockets), fails
    if sockets and not sse:
        r["extension"] = sockets[0].response_headers.get("Sec-WebSocket-Extensions", "")
    print(f"  opened {len(sockets)} of {n} in {r['open_seconds']} s", flush=True)

    await asyncio.sleep(IDLE_SECONDS)
    t1, c1 = time.monotonic(), parse_cpu_ticks(read_proc(pid, "stat"))
    slices, ts, cs = [], t1, c1
    while ts - t1 < CPU_WINDOW - 0.01:
        await asyncio.sleep(CPU_SLICE)
        tn, cn = time.monotonic(), parse_cpu_ticks(read_proc(pid, "stat"))
        slices.append(round(cpu_percent(cn - cs, tn - ts, clk), 2))
        ts, cs = tn, cn
    r["idle_cpu_ticks"], r["idle_cpu_seconds"] = cs - c1, round(ts - t1, 2)
    r["idle_cpu_pct"] = round(cpu_percent(cs - c1, ts - t1, clk), 2)
    r["idle_cpu_slices"] = slices
    r["idle"] = await measure()
    r["heap_per_conn"] = per_conn(r["base"]["heap"], r["idle"]["heap"], len(sockets))
    r["rss_per_conn"] = per_conn(r["base"]["rss"], r["idle"]["rss"], len(sockets))
    print(f"  idle: heap {fmt_bytes(r['idle']['heap'])}, RSS {fmt_bytes(r['idle']['rss'])}, "
          f"{r['idle']['threads']} threads, CPU {r['idle_cpu_pct']} %", flush=True)

    still_open = [ws for ws in sockets if ws.open]
    r["open_after_idle"] = len(still_open)
    chosen = random.Random(args.seed).sample(still_open, min(PROBES, len(still_open)))
    if sse:
        r["probes"] = await probe_streams(args.port, chosen)
    else:
        results = await asyncio.gather(*(echo(ws, f"probe {i} \u2603") for i, ws in enumerate(chosen)),
                                       return_exceptions=True)
        r["probes"] = {"sent": len(chosen), "ok": sum(res is True for res in results),
                       "errors": sorted({f"{type(e).__name__}: {e}"[:160] for e in results if isinstance(e, BaseException)})}
    r["health"] = await health(args.port)

    codes = {}
    closing = close_stream if sse else close_one
    for start in range(0, len(sockets), BATCH):
        for res in await asyncio.gather(*(closing(ws) for ws in sockets[start:start + BATCH]),
                                        return_exceptions=True):
            key = f"{type(res).__name__}" if isinstance(res, BaseException) else str(res)
            codes[key] = codes.get(key, 0) + 1
    r["closes"] = {"ok": codes.get("closed" if sse else "1000", 0), "codes": codes}
    await asyncio.sleep(2)
    r["closed"] = await measure()
    print(f"  closed: {codes}; heap {fmt_bytes(r['closed']['heap'])}", flush=True)


def cmd_run(args) -> int:
    r = {"connections": args.connections, "port": args.port, "pid": args.pid, "seed": args.seed,
         "cpu_slice": CPU_SLICE, "kind": args.kind,
         "compression": args.compression,
         "batch": BATCH, "idle_seconds": IDLE_SECONDS, "cpu_window": CPU_WINDOW}
    r["nofile"] = raise_nofile(args.connections + 1024)
    try:
        asyncio.run(asyncio.wait_for(run(args, r), DEADLINE))
    except Exception as e:   # the report fails the server; the JSON says where it stopped
        r["error"] = f"{type(e).__name__}: {e}"[:300]
    r["alive"] = alive(args.pid)
    Path(args.out).write_text(json.dumps(r, indent=1) + "\n")
    return 0


# --- report ------------------------------------------------------------------------------------

COLUMNS = ["server", "connections", "opened", "heap_base", "heap_idle", "heap_closed", "heap_per_conn",
           "rss_base", "rss_idle", "rss_per_conn", "threads_base", "threads_idle", "threads_closed",
           "idle_cpu_pct", "idle_cpu_peak_slice", "probes_ok", "probes_sent", "health", "closes_ok", "extension", "verdict", "why"]


def load(server_dir: Path) -> dict:
    f = server_dir / "client.json"
    r = json.loads(f.read_text()) if f.exists() else {"started": False}
    launch = server_dir / "launch.tsv"
    if launch.exists():
        kv = dict(line.split("\t", 1) for line in launch.read_text().splitlines() if "\t" in line)
        r["started"] = kv.get("started", "yes") == "yes"
    output = "".join(p.read_text(errors="replace") for p in (server_dir / "server.out", server_dir / "server.err") if p.exists())
    r["oom"] = "OutOfMemoryError" in output
    return r


def read_meta(run_dir: Path) -> dict:
    f = run_dir / "meta.tsv"
    lines = f.read_text().splitlines() if f.exists() else []
    return dict(line.split("\t", 1) for line in lines if "\t" in line)


def row(name: str, r: dict) -> dict:
    ok, why = verdict(r)
    g = lambda phase, key: r.get(phase, {}).get(key)   # noqa: E731
    return {"server": name, "connections": r.get("connections"), "opened": r.get("opened"),
            "heap_base": g("base", "heap"), "heap_idle": g("idle", "heap"), "heap_closed": g("closed", "heap"),
            "heap_per_conn": None if r.get("heap_per_conn") is None else round(r["heap_per_conn"]),
            "rss_base": g("base", "rss"), "rss_idle": g("idle", "rss"),
            "rss_per_conn": None if r.get("rss_per_conn") is None else round(r["rss_per_conn"]),
            "threads_base": g("base", "threads"), "threads_idle": g("idle", "threads"),
            "threads_closed": g("closed", "threads"), "idle_cpu_pct": r.get("idle_cpu_pct"),
            "idle_cpu_peak_slice": max(r["idle_cpu_slices"]) if r.get("idle_cpu_slices") else None,
            "probes_ok": r.get("probes", {}).get("ok"), "probes_sent": r.get("probes", {}).get("sent"),
            "health": r.get("health", {}).get("status"), "closes_ok": r.get("closes", {}).get("ok"),
            "extension": r.get("extension", ""), "verdict": "PASS" if ok else "FAIL", "why": "; ".join(why)}


def cmd_report(run_dir: Path, echo: bool = True) -> int:
    import raw_archive   # beside this file: a committed run keeps raw/ as raw.tar.gz
    with raw_archive.extracted(run_dir):
        return write_report(run_dir, echo)


def write_report(run_dir: Path, echo: bool) -> int:
    servers = [line for line in (run_dir / "servers").read_text().split() if line] \
        if (run_dir / "servers").exists() else sorted(p.name for p in (run_dir / "raw").iterdir())
    rows = [row(s, load(run_dir / "raw" / s)) for s in servers]
    with open(run_dir / "summary.tsv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows({k: ("" if v is None else v) for k, v in x.items()} for x in rows)
    meta = read_meta(run_dir)
    props = f" and {meta['server_props']}" if meta.get("server_props") else ""
    offer = "no extension offered" if meta.get("compression") == "none" else "permessage-deflate offered"
    sse = meta.get("kind") == "sse"
    what = "GET /sse/broadcast event streams" if sse else f"connections to GET /ws/echo ({offer})"
    window = "two of Spindle's 15 s heartbeats" if sse else "one ping interval"
    md = ["# Idle " + ("event streams" if sse else "WebSocket connections"), "",
          f"Each server at -Xms256m -Xmx256m{props}; the {what} "
          f"opened {BATCH} at a time, then {IDLE_SECONDS:g} s idle and the server's CPU over "
          f"{CPU_WINDOW:g} s ({window}; in brackets its busiest {CPU_SLICE:g} s); "
          "heap is `jcmd GC.heap_info` used after `jcmd GC.run`, RSS is VmRSS; per connection = "
          "(idle - baseline) / connections opened.", "", f"Rule: {RULE}", ""] + (
          ["For event streams a probe is one event published by POST /sse/publish that the probed stream must "
           "read, and a close is the client closing its socket (no close code).", ""] if sse else []) + [
          
          "| server | connections | heap/conn | RSS/conn | threads idle | idle CPU % (peak) | verdict |",
          "|---|---:|---:|---:|---:|---:|---|"]
    for x in rows:
        md.append(f"| {x['server']} | {fmt(x['opened'], 'd')}/{fmt(x['connections'], 'd')} | "
                  f"{fmt_bytes(x['heap_per_conn'])} | {fmt_bytes(x['rss_per_conn'])} | {fmt(x['threads_idle'], 'd')} | "
                  f"{fmt(x['idle_cpu_pct'], '.2f')} ({fmt(x['idle_cpu_peak_slice'], '.1f')}) | {x['verdict']} |")
    md += ["", "| server | heap base | heap idle | heap after close | RSS base | RSS idle | threads base/closed "
           "| probes | GET /plaintext | " + ("closes" if sse else "closes 1000") + " | extension |", "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"]
    for x in rows:
        md.append(f"| {x['server']} | {fmt_bytes(x['heap_base'])} | {fmt_bytes(x['heap_idle'])} | "
                  f"{fmt_bytes(x['heap_closed'])} | {fmt_bytes(x['rss_base'])} | {fmt_bytes(x['rss_idle'])} | "
                  f"{fmt(x['threads_base'], 'd')}/{fmt(x['threads_closed'], 'd')} | {fmt(x['probes_ok'], 'd')}/"
                  f"{fmt(x['probes_sent'], 'd')} | {x['health'] or 'n/a'} | {fmt(x['closes_ok'], 'd')} | "
                  f"{x['extension'] or 'n/a'} |")
    failed = [x for x in rows if x["verdict"] != "PASS"]
    if failed:
        md += ["", "Failures:", ""] + [f"- {x['server']}: {x['why']}" for x in failed]
    (run_dir / "summary.md").write_text("\n".join(md) + "\n")
    if echo:
        print("\n".join(md))
    return 1 if failed or not rows else 0


def main(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--pid", type=int, required=True)
    r.add_argument("--jcmd", required=True)
    r.add_argument("--connections", type=int, default=10000)
    r.add_argument("--seed", type=int, default=6455)
    r.add_argument("--compression", choices=["deflate", "none"], default="deflate")
    r.add_argument("--kind", choices=["websocket", "sse"], default="websocket")
    r.add_argument("--out", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("run_dir", type=Path)
    args = p.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_report(args.run_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
