#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile clients for scripts/soak.sh; standard library only (python3 >= 3.9), asyncio.

  soak_hostile.py --port P [--host 127.0.0.1] --duration SECONDS --status FILE [--scale X]

Runs every behaviour below at once, each as a steady population or a loop, until the duration
ends or SIGTERM/SIGINT arrives; then closes every socket it holds and writes its final counters
to FILE (JSON; rewritten about once a second while running, so a sampler can read progress).

  slowloris    300 connections, each sends a request line and then one header byte every
               0.5-2 s, never finishing the header section; when the server closes one (header
               timeout, 408) it is reopened. One still open after 150 s is closed by us ("gave up").
  idle         1,000 keep-alive connections: one GET /plaintext answered, then silence. Half
               wait for the server to close them (idle timeout; 150 s cap), half close by themselves
               after 5-50 s. Each is reopened after it ends.
  nonreader    4 connections at a time POST an 8 MiB body to /echo with a 4 KiB receive buffer and
               never read the 8 MiB answer; after 45 s the server's end of the connection is
               looked up in /proc/net/tcp and tcp6 (ESTABLISHED = the server still holds it;
               FIN_WAIT1 or gone = it dropped it, e.g. on its write timeout), then it is reset.
  reset        4 loops of abrupt resets (SO_LINGER 0, then close): mid-header, mid-body (1 MiB
               announced, up to 256 KiB sent), mid-response (1 MiB echo, reset after 16 KiB of
               the answer) and mid-pipelined-response (200 pipelined GETs, reset after 1 KiB).
  halfclose    2 loops: a whole request then shutdown(SHUT_WR) (the answer should still come,
               then the close), or half a request then SHUT_WR (the server should close).
  garbage      every 2 s a batch of 50 connections sends random bytes (binary, printable junk
               with CRLFs, a broken request line, an endless line); each waits up to 15 s for
               the server's answer and close.

The counts are observations, not verdicts: legitimate traffic is checked elsewhere (soak.py
check and wrk). "connect_failed" anywhere means the server refused or timed out a connection.
Everything goes to the given host (127.0.0.1); every loop ends at the deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import struct
import sys
import time
from collections import Counter

ECHO_8M = 8 * 1024 * 1024
ONE_MIB = 1024 * 1024
CONNECT_TIMEOUT = 10.0

BEHAVIOURS = ("slowloris", "idle", "nonreader", "reset", "halfclose", "garbage")
RESET_VARIANTS = ("mid_header", "mid_body", "mid_response", "mid_pipelined_response")

# TCP states in /proc/net/tcp (include/net/tcp_states.h)
TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
              6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING"}


class Lifetimes:
    """Running min/max/sum of a duration, so the status stays small."""

    def __init__(self) -> None:
        self.n, self.total, self.lo, self.hi = 0, 0.0, None, None

    def add(self, seconds: float) -> None:
        self.n += 1
        self.total += seconds
        self.lo = seconds if self.lo is None else min(self.lo, seconds)
        self.hi = seconds if self.hi is None else max(self.hi, seconds)

    def as_dict(self) -> dict:
        if not self.n:
            return {"n": 0}
        return {"n": self.n, "min_s": round(self.lo, 2), "mean_s": round(self.total / self.n, 2),
                "max_s": round(self.hi, 2)}


class Stats:
    def __init__(self) -> None:
        self.counts: dict[str, Counter] = {}
        self.open: Counter = Counter()
        self.lifetimes: dict[str, Lifetimes] = {}
        self.started = time.time()

    def inc(self, behaviour: str, key: str, n: int = 1) -> None:
        self.counts.setdefault(behaviour, Counter())[key] += n

    def life(self, name: str, seconds: float) -> None:
        self.lifetimes.setdefault(name, Lifetimes()).add(seconds)

    def snapshot(self, final: bool) -> dict:
        return {
            "final": final,
            "elapsed_s": round(time.time() - self.started, 1),
            "open": dict(self.open),
            "open_total": sum(self.open.values()),
            "counts": {b: dict(sorted(c.items())) for b, c in sorted(self.counts.items())},
            "lifetimes": {k: v.as_dict() for k, v in sorted(self.lifetimes.items())},
        }


class Driver:
    def __init__(self, host: str, port: int, deadline: float, stats: Stats, scale: float) -> None:
        self.host, self.port, self.deadline, self.stats, self.scale = host, port, deadline, stats, scale
        self.loop = asyncio.get_running_loop()
        self.socks: set[socket.socket] = set()
        self.body8m = os.urandom(ECHO_8M)
        self.body1m = self.body8m[:ONE_MIB]
        self.stopping = asyncio.Event()

    # --- helpers -------------------------------------------------------------------------------

    def n(self, count: int) -> int:
        return max(1, int(count * self.scale))

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def running(self) -> bool:
        return not self.stopping.is_set() and self.left() > 0

    async def pause(self, seconds: float) -> None:
        """Sleeps, but wakes at once when the run stops."""
        seconds = min(seconds, max(self.left(), 0))
        try:
            await asyncio.wait_for(self.stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def connect(self, behaviour: str, rcvbuf: int | None = None) -> socket.socket | None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.socks.add(sock)
        try:
            await asyncio.wait_for(self.loop.sock_connect(sock, (self.host, self.port)), CONNECT_TIMEOUT)
        except (OSError, asyncio.TimeoutError) as e:
            self.close(sock)
            self.stats.inc(behaviour, "connect_failed")
            self.stats.inc(behaviour, f"connect_failed_{type(e).__name__}")
            return None
        self.stats.inc(behaviour, "connections")
        self.stats.open[behaviour] += 1
        return sock

    def close(self, sock: socket.socket, behaviour: str | None = None, reset: bool = False) -> None:
        if sock not in self.socks:
            return
        self.socks.discard(sock)
        if behaviour:
            self.stats.open[behaviour] -= 1
        try:
            if reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        sock.close()

    async def send(self, sock: socket.socket, data: bytes, timeout: float = 30.0) -> str | None:
        """Sends all of data; None when sent, else what stopped it."""
        try:
            await asyncio.wait_for(self.loop.sock_sendall(sock, data), timeout)
            return None
        except asyncio.TimeoutError:
            return "send_timeout"
        except (BrokenPipeError, ConnectionResetError):
            return "send_reset"
        except OSError as e:
            return f"send_{type(e).__name__}"

    async def recv(self, sock: socket.socket, size: int, timeout: float) -> bytes | str:
        """bytes (b'' = EOF) or "timeout" / "reset"."""
        try:
            return await asyncio.wait_for(self.loop.sock_recv(sock, size), max(timeout, 0.001))
        except asyncio.TimeoutError:
            return "timeout"
        except ConnectionResetError:
            return "reset"
        except OSError:
            return "reset"

    async def read_until_close(self, sock: socket.socket, timeout: float, keep: int = 256) -> tuple[bytes, str, int]:
        """Reads until EOF/reset/timeout; returns (first bytes, how it ended, bytes read)."""
        end = time.monotonic() + timeout
        head, total = b"", 0
        while True:
            got = await self.recv(sock, 65536, end - time.monotonic())
            if isinstance(got, str):
                return head, got, total
            if not got:
                return head, "eof", total
            total += len(got)
            if len(head) < keep:
                head += got[: keep - len(head)]

    async def read_response(self, sock: socket.socket, timeout: float) -> int | str:
        """Reads one response with a Content-Length body; its status, or what went wrong."""
        end = time.monotonic() + timeout
        buf = b""
        while b"\r\n\r\n" not in buf:
            got = await self.recv(sock, 65536, end - time.monotonic())
            if isinstance(got, str):
                return got
            if not got:
                return "eof"
            buf += got
        head, _, rest = buf.partition(b"\r\n\r\n")
        status = status_of(head)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip() or 0)
        while len(rest) < length:
            got = await self.recv(sock, 65536, end - time.monotonic())
            if isinstance(got, str):
                return got
            if not got:
                return "eof"
            rest += got
        return status if status is not None else "bad_status_line"

    # --- behaviours ----------------------------------------------------------------------------

    async def slowloris(self, idx: int) -> None:
        b = "slowloris"
        await self.pause(random.uniform(0, 10))
        while self.running():
            sock = await self.connect(b)
            if sock is None:
                await self.pause(1)
                continue
            t0 = time.monotonic()
            outcome = None
            try:
                err = await self.send(sock, b"GET /plaintext HTTP/1.1\r\nHost: soak\r\nX-Slow-%d: " % idx, 10)
                if err:
                    outcome = "closed_by_server"
                trickle = b"abcdefghij" * 100
                i = 0
                while outcome is None and self.running():
                    if time.monotonic() - t0 > 150:
                        outcome = "gave_up_150s"
                        break
                    got = await self.recv(sock, 4096, random.uniform(0.5, 2.0))
                    if got == "timeout":
                        err = await self.send(sock, trickle[i % len(trickle): i % len(trickle) + 1], 10)
                        i += 1
                        if err:
                            outcome = "closed_by_server"
                        continue
                    if isinstance(got, bytes) and got:
                        self.stats.inc(b, f"answered_{status_of(got) or 'garbled'}")
                        rest = await self.read_until_close(sock, 15)
                        outcome = "closed_by_server" if rest[1] in ("eof", "reset") else "answered_not_closed"
                    else:
                        outcome = "closed_by_server"
            finally:
                self.close(sock, b, reset=True)
            if outcome:
                self.stats.inc(b, outcome)
                if outcome == "closed_by_server":
                    self.stats.life("slowloris_closed_by_server", time.monotonic() - t0)
            await self.pause(random.uniform(0.1, 1.0))

    async def idle(self, idx: int) -> None:
        b = "idle"
        await self.pause(random.uniform(0, 20))
        first = True
        while self.running():
            if not first:
                await self.pause(random.uniform(0.1, 2.0))
            first = False
            sock = await self.connect(b)
            if sock is None:
                await self.pause(1)
                continue
            t0 = time.monotonic()
            wait_server = random.random() < 0.5
            life = 150.0 if wait_server else random.uniform(5, 50)
            try:
                err = await self.send(sock, b"GET /plaintext HTTP/1.1\r\nHost: soak\r\n\r\n", 10)
                status = err or await self.read_response(sock, 15)
                self.stats.inc(b, f"first_answer_{status}")
                if status != 200:
                    continue
                t1 = time.monotonic()
                while self.running():
                    remaining = life - (time.monotonic() - t1)
                    if remaining <= 0:
                        self.stats.inc(b, "server_kept_150s" if wait_server else "closed_by_client")
                        break
                    got = await self.recv(sock, 4096, min(remaining, 5.0))
                    if got == "timeout":
                        continue
                    if isinstance(got, bytes) and got:
                        self.stats.inc(b, f"unsolicited_{status_of(got) or 'bytes'}")
                        continue
                    self.stats.inc(b, "closed_by_server")
                    self.stats.life("idle_closed_by_server", time.monotonic() - t1)
                    break
            finally:
                # A graceful close (FIN): that is what an idle client does.
                self.close(sock, b)

    async def nonreader(self, idx: int, hold: float) -> None:
        b = "nonreader"
        await self.pause(idx * 3 + random.uniform(0, 3))
        first = True
        while self.running() and self.left() > 20:
            if not first:
                await self.pause(random.uniform(0.5, 2))
            first = False
            sock = await self.connect(b, rcvbuf=4096)
            if sock is None:
                await self.pause(2)
                continue
            try:
                local_port = sock.getsockname()[1]
                head = (b"POST /echo HTTP/1.1\r\nHost: soak\r\nContent-Type: application/octet-stream\r\n"
                        b"Content-Length: %d\r\n\r\n" % ECHO_8M)
                err = await self.send(sock, head + self.body8m, 60)
                if err:
                    self.stats.inc(b, f"upload_{err}")
                    continue
                self.stats.inc(b, "uploaded_8MiB")
                await self.pause(hold)
                if not self.running():
                    break
                state = server_side_state(self.port, local_port)
                self.stats.inc(b, f"after_{int(hold)}s_server_side_{state}")
            finally:
                self.close(sock, b, reset=True)

    async def reset(self, idx: int, variants) -> None:
        b = "reset"
        await self.pause(random.uniform(0, 2))
        while self.running():
            variant = random.choice(variants)
            sock = await self.connect(b)
            if sock is None:
                await self.pause(1)
                continue
            try:
                if variant == "mid_header":
                    req = b"GET /plaintext HTTP/1.1\r\nHost: soak\r\nUser-Agent: soak-reset\r\nAccept: */*\r\n\r\n"
                    err = await self.send(sock, req[: random.randrange(1, len(req) - 1)], 10)
                elif variant == "mid_body":
                    head = (b"POST /echo HTTP/1.1\r\nHost: soak\r\nContent-Type: application/octet-stream\r\n"
                            b"Content-Length: %d\r\n\r\n" % ONE_MIB)
                    err = await self.send(sock, head + self.body1m[: random.randrange(0, 256 * 1024)], 15)
                    await self.pause(random.uniform(0, 0.05))
                elif variant == "mid_response":
                    head = (b"POST /echo HTTP/1.1\r\nHost: soak\r\nContent-Type: application/octet-stream\r\n"
                            b"Content-Length: %d\r\n\r\n" % ONE_MIB)
                    err = await self.send(sock, head + self.body1m, 15)
                    if not err:
                        err = await self.read_some(sock, 16 * 1024, 10)
                else:
                    err = await self.send(sock, b"GET /plaintext HTTP/1.1\r\nHost: soak\r\n\r\n" * 200, 15)
                    if not err:
                        err = await self.read_some(sock, 1024, 10)
                self.stats.inc(b, variant if not err else f"{variant}_{err}")
            finally:
                self.close(sock, b, reset=True)
            await self.pause(random.uniform(0.05, 0.3))

    async def read_some(self, sock: socket.socket, want: int, timeout: float) -> str | None:
        end, got_total = time.monotonic() + timeout, 0
        while got_total < want:
            got = await self.recv(sock, want - got_total, end - time.monotonic())
            if isinstance(got, str):
                return f"no_answer_{got}"
            if not got:
                return "no_answer_eof"
            got_total += len(got)
        return None

    async def halfclose(self, idx: int) -> None:
        b = "halfclose"
        while self.running():
            await self.pause(random.uniform(0.2, 0.5))
            whole = random.random() < 0.5
            sock = await self.connect(b)
            if sock is None:
                await self.pause(1)
                continue
            try:
                req = b"GET /json HTTP/1.1\r\nHost: soak\r\n\r\n"
                if not whole:
                    req = req[: random.randrange(1, len(req) - 2)]
                err = await self.send(sock, req, 10)
                if err:
                    self.stats.inc(b, f"{'whole' if whole else 'partial'}_{err}")
                    continue
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    self.stats.inc(b, "shutdown_failed")
                    continue
                t0 = time.monotonic()
                head, how, _ = await self.read_until_close(sock, 15)
                status = status_of(head)
                if whole:
                    if how == "timeout":
                        key = "whole_answered_but_not_closed_15s" if status else "whole_hung_15s"
                    else:
                        key = f"whole_answered_{status}_then_closed" if status else f"whole_closed_without_answer_{how}"
                else:
                    if how == "timeout":
                        key = "partial_not_closed_15s"
                    else:
                        key = f"partial_closed_{how}" + (f"_after_{status}" if status else "")
                        self.stats.life("halfclose_partial_closed", time.monotonic() - t0)
                self.stats.inc(b, key)
            finally:
                self.close(sock, b)

    async def garbage_one(self) -> None:
        b = "garbage"
        kind = random.choice(("binary", "printable", "bad_request_line", "long_line", "bad_headers"))
        if kind == "binary":
            payload = os.urandom(random.randint(1, 8192))
        elif kind == "printable":
            alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 :/\r\n\t%-._~"
            payload = bytes(random.choice(alphabet) for _ in range(random.randint(16, 2048))) + b"\r\n\r\n"
        elif kind == "bad_request_line":
            payload = random.choice((b"GET\r\n\r\n", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
                                     b"GET /plaintext HTTP/1.1 extra\r\nHost: x\r\n\r\n", b"G\x00T / HTTP/1.1\r\n\r\n"))
        elif kind == "long_line":
            payload = b"GET /" + b"a" * random.randint(9000, 20000)
        else:
            payload = (b"GET /plaintext HTTP/1.1\r\nHost: x\r\n" + os.urandom(random.randint(8, 512)).replace(b"\r\n\r\n", b"")
                       + b"\r\n\r\n")
        sock = await self.connect(b)
        if sock is None:
            return
        try:
            err = await self.send(sock, payload, 10)
            head, how, _ = await self.read_until_close(sock, 15)
            status = status_of(head)
            if status:
                key = f"answered_{status}" + ("" if how in ("eof", "reset") else "_not_closed_15s")
            elif how == "timeout":
                key = "no_answer_not_closed_15s"
            else:
                key = f"closed_without_answer_{how}"
            self.stats.inc(b, key)
            self.stats.inc(b, f"kind_{kind}")
            if err:
                self.stats.inc(b, f"payload_{err}")
        finally:
            self.close(sock, b, reset=True)

    async def garbage(self, batch: int) -> None:
        await self.pause(random.uniform(0, 2))
        while self.running():
            started = time.monotonic()
            await asyncio.gather(*(self.garbage_one() for _ in range(batch)))
            await self.pause(max(0.0, 2.0 - (time.monotonic() - started)))


def status_of(data: bytes) -> int | None:
    """The status code of a response starting in data, or None."""
    if not data.startswith(b"HTTP/1."):
        return None
    parts = data.split(b"\r\n", 1)[0].split(b" ")
    if len(parts) >= 2 and parts[1].isdigit():
        return int(parts[1])
    return None


def server_side_state(server_port: int, client_port: int) -> str:
    """TCP state of the server's end of the connection from client_port (from /proc/net/tcp):
    "ESTABLISHED" while the server still holds it open; a closing state or "gone" once dropped."""
    want_local, want_remote = f":{server_port:04X}", f":{client_port:04X}"
    readable = False
    # A JVM's sockets are usually IPv6 ones (IPv4-mapped), listed in tcp6, not tcp.
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                readable = True
                next(f)
                for line in f:
                    parts = line.split()
                    if len(parts) > 3 and parts[1].endswith(want_local) and parts[2].endswith(want_remote):
                        return TCP_STATES.get(int(parts[3], 16), parts[3])
        except OSError:
            pass
    return "gone" if readable else "unknown"


def write_status(path: str, stats: Stats, final: bool) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(stats.snapshot(final), f, indent=1)
    os.replace(tmp, path)


async def amain(args) -> int:
    stats = Stats()
    deadline = time.monotonic() + args.duration
    d = Driver(args.host, args.port, deadline, stats, args.scale)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, d.stopping.set)

    only = set(args.only.split(",")) if args.only else set(BEHAVIOURS)
    coros = []
    if "slowloris" in only:
        coros += [d.slowloris(i) for i in range(d.n(300))]
    if "idle" in only:
        coros += [d.idle(i) for i in range(d.n(1000))]
    if "nonreader" in only:
        coros += [d.nonreader(i, args.nonreader_hold) for i in range(d.n(4))]
    if "reset" in only:
        coros += [d.reset(i, args.reset_variants.split(",") if args.reset_variants else RESET_VARIANTS)
                  for i in range(d.n(4))]
    if "halfclose" in only:
        coros += [d.halfclose(i) for i in range(d.n(2))]
    if "garbage" in only:
        coros.append(d.garbage(d.n(50)))
    tasks = [asyncio.ensure_future(c) for c in coros]

    async def reporter():
        # Until cancelled, so the closing of every connection at the end shows too.
        while True:
            write_status(args.status, stats, False)
            await asyncio.sleep(1.0)

    rep = asyncio.ensure_future(reporter())
    try:
        await d.pause(args.duration + 1)
    finally:
        d.stopping.set()
        # Every loop notices the stop within one pause or receive timeout; cancel what is left.
        done, pending = await asyncio.wait(tasks, timeout=5)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for t in done:
            if t.exception() is not None:
                stats.inc("driver", f"task_error_{type(t.exception()).__name__}")
                print(f"soak_hostile: task failed: {t.exception()!r}", file=sys.stderr)
        rep.cancel()
        for sock in list(d.socks):
            d.close(sock, reset=True)
        write_status(args.status, stats, True)
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--duration", type=float, required=True, help="seconds")
    ap.add_argument("--status", required=True, help="JSON file with the counters")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every population (default 1)")
    ap.add_argument("--nonreader-hold", type=float, default=45.0, help="seconds a non-reader holds on (default 45)")
    ap.add_argument("--only", help=f"comma-separated behaviours to run (for diagnosis; default all: {','.join(BEHAVIOURS)})")
    ap.add_argument("--reset-variants", help=f"comma-separated reset variants (default all: {','.join(RESET_VARIANTS)})")
    args = ap.parse_args(argv)
    if args.duration <= 0 or args.scale <= 0:
        ap.error("--duration and --scale must be positive")
    for given, known in ((args.only, BEHAVIOURS), (args.reset_variants, RESET_VARIANTS)):
        unknown = set(given.split(",")) - set(known) if given else set()
        if unknown:
            ap.error(f"unknown: {', '.join(sorted(unknown))}; known: {', '.join(known)}")
    return asyncio.run(amain(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
