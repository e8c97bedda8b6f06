#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Clients and report of scripts/hostile-memory.sh; standard library only (python3 >= 3.9).

  hostile_memory.py run --port P --pid PID --out DIR --phases A,B [--quick]
      one server launch: the health prober (a new connection with GET /plaintext every 0.2 s)
      throughout, the named phases one after the other, then the server's CPU once the load is
      gone; writes DIR/client.json, DIR/health.tsv and the ab outputs (DIR/ab-N.txt)
  hostile_memory.py report RUN_DIR
      RUN_DIR/summary.md and summary.tsv from raw/<server>/<launch>/ (client.json, health.tsv,
      server.out, server.err, gc.log, launch.tsv); exit 1 when any server fails

Phases (sizes for a full run; --quick uses the smaller figures in QUICK):
  oversized  4 POST /echo announcing 300 MB (Content-Length) and 4 sending 300 MB chunked, at
             once; the bytes are streamed until the server answers or closes
  uploads    100 POST /echo of 300 MB, 4 at a time, Content-Length and chunked in turn (half each),
             to a server started with spindle.maxBodySize lowered to 1 MiB (so that four chunked
             bodies refused at the limit fit the buffered-body budget together, and 413 is the only
             right answer); each body streamed until the server answers or closes, then the
             connection read to its end: every upload must read its 413 with no reset (ECONNRESET,
             EPIPE) before the status; resets after the status are counted and shown, not judged
  raised     2 POST /echo of 300 MB at once, to a server started with spindle.maxBodySize raised
             to 300 MiB (the issue's reproduction); each must get 413/503, or 200 with the whole
             echo if the server can take it within its heap
  multipart  2 POST /multipart at once (1 with --quick), multipart/form-data bodies of a field and a
             300 MB file, one with Content-Length and one chunked, to a server at the default limits:
             the route stores the file on disk (Multipart.form()) and answers its size and SHA-256,
             which must be 200 with the field, the size and the digest the client computed
  slow       200 connections send a 64-byte body 4 bytes at a time: half every 0.3 s (done in
             about 5 s, inside the 10 s header timeout: expect 200), half every 1 s (about 16 s:
             expect 408 at the header timeout)
  medium     64 clients POST 4-8 MB bodies to /echo in a loop for 30 s, the echo's length checked
  churn      ab -n 20000 -c 1000 (no keep-alive) against /plaintext, 3 rounds

What counts as answered: a request is answered when its status line and header section were read
(2xx or 4xx/5xx). A 2xx must carry the whole echo (its length checked). After a 4xx/5xx status
the server may close or reset at once (it refuses the rest of an upload): that is answered. A
reset, close or timeout before the status line is a failure, whatever the server meant to send:
the client polls for the answer while it uploads (it stops sending as soon as the socket is
readable), so a status the server wrote before closing is seen. For ab: a request is answered when
ab counted it complete; ab's "Length" failures are answers whose length differs from the first
(a 503 among 200s), not failures; connect, receive and exception failures are.
"""

from __future__ import annotations

import argparse
import csv
import errno
import hashlib
import json
import os
import random
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True   # no __pycache__ beside the scripts
sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak import cpu_seconds  # noqa: E402
import raw_archive  # noqa: E402

HOST = "127.0.0.1"
MB = 1000 * 1000
MIB = 1024 * 1024
HEALTH_INTERVAL = 0.2     # seconds between health probes
HEALTH_LIMIT = 1.0        # a probe slower than this fails the run
HEALTH_TIMEOUT = 5.0      # a probe is abandoned (and failed) after this long
SETTLE_S = 5.0            # after the last phase, before the CPU is sampled
CPU_WINDOW_S = 5.0        # the CPU sample
CPU_IDLE_PCT = 5.0        # the server must be below this share of one core in that window
SEND_PIECE = 256 * 1024
PIECE = random.Random(24).randbytes(SEND_PIECE)

FULL = {
    "oversized": {"length": 300 * MB, "each": 4, "deadline": 60.0},
    "uploads": {"uploads": 100, "length": 300 * MB, "concurrency": 4, "deadline": 60.0},
    "raised": {"length": 300 * MB, "clients": 2, "deadline": 60.0},
    "multipart": {"uploads": 2, "length": 300 * MB, "deadline": 180.0},
    "slow": {"connections": 200, "length": 64, "step": 4, "fast_pace": 0.3, "slow_pace": 1.0, "deadline": 30.0},
    "medium": {"clients": 64, "min": 4 * MB, "max": 8 * MB, "seconds": 30.0, "deadline": 30.0},
    "churn": {"requests": 20000, "concurrency": 1000, "rounds": 3, "timeout": 10},
}
QUICK = {
    "oversized": {"length": 300 * MB, "each": 2, "deadline": 20.0},
    "uploads": {"uploads": 8, "length": 300 * MB, "concurrency": 4, "deadline": 20.0},
    "raised": {"length": 300 * MB, "clients": 2, "deadline": 20.0},
    "multipart": {"uploads": 1, "length": 300 * MB, "deadline": 120.0},
    "slow": {"connections": 40, "length": 64, "step": 4, "fast_pace": 0.3, "slow_pace": 1.0, "deadline": 20.0},
    "medium": {"clients": 16, "min": 4 * MB, "max": 8 * MB, "seconds": 8.0, "deadline": 20.0},
    "churn": {"requests": 3000, "concurrency": 1000, "rounds": 2, "timeout": 10},
}
PHASES = ("oversized", "uploads", "raised", "multipart", "slow", "medium", "churn")
# The uploads phase: the one status every refused upload must read, and the errors that are a reset.
UPLOAD_STATUS = 413
RESET_ERRNOS = {errno.ECONNRESET: "ECONNRESET", errno.EPIPE: "EPIPE"}

# Servers that serve one connection at a time by design: a health probe waits behind the connection
# in service, and a slow body holds the only thread until its header timeout, so their health probes
# and the slow phase are measured and shown but not judged; every other rule holds for them.
ONE_AT_A_TIME = {"SingleThreadServer"}

VERDICT_RULE = f"""\
A server passes when, in each of its launches:
- every hostile request was **answered**: its status line was read and is 2xx (with the whole
  echo, length checked) or 4xx/5xx; after a 4xx/5xx the server may close or reset the upload. A
  reset, close or timeout before the status line is a failure (the client watches for the answer
  while it uploads, so a status written before the close is seen). For ab, every request must be
  complete; answers of another length (a 503 among 200s) count as answers;
- in the **multipart** phase every upload got 200 with its field, the file's size and the SHA-256
  the client computed (the server stored the 300 MB file on disk within its heap); any other answer
  fails the server;
- in the **uploads** phase (300 MB bodies, far over the body limit) every upload read a
  {UPLOAD_STATUS} and saw no reset (ECONNRESET, EPIPE) before it, while sending or reading: the
  server lingers (drops what still arrives) before it closes, so a client never loses its answer to
  a reset. Another status, a reset, close or timeout before the status fails the server; a reset
  after the status was read is allowed, as above, and counted ("resets after");
- every **health probe** (a new connection, GET /plaintext, every {HEALTH_INTERVAL:g} s from before
  the first phase to after the last) got 200 `Hello, World!` within {HEALTH_LIMIT:g} s; a probe is
  abandoned after {HEALTH_TIMEOUT:g} s, so a "health max" of about {HEALTH_TIMEOUT * 1000:g} ms means no answer, and a
  refused connection fails at once (count the failed probes, not only the maximum);
- the server's output holds **no OutOfMemoryError** (stdout and stderr, every line naming it
  counted);
- its **CPU returned to idle**: below {CPU_IDLE_PCT:g} % of one core over {CPU_WINDOW_S:g} s, sampled
  {SETTLE_S:g} s after the last phase (utime + stime from /proc/PID/stat);
- it stayed up and was stopped by SIGTERM at the end.
A server that serves one connection at a time by design ({", ".join(sorted(ONE_AT_A_TIME))}) is
judged by every rule but two: its health probes wait behind the connection in service and the slow
phase's bodies hold its only thread until their header timeout, so both are shown, marked "not
judged", and the memory rules (answers in the other phases, no OutOfMemoryError, CPU back to idle)
decide.
Peak heap is the largest heap occupancy before a collection in the GC log (`-Xlog:gc`): what the
heap held at its fullest between collections, out of the fixed heap.
"""


# --- one HTTP exchange -------------------------------------------------------------------------

class Exchange:
    """One connection and one request, read back by hand so a reset or close is told from an
    answer: the outcome is the status ("413") or what happened before one ("reset", "closed",
    "timeout", "connect_failed"), plus "bad_2xx" when a 2xx came without the whole echo."""

    def __init__(self, port: int, deadline: float) -> None:
        self.port, self.deadline = port, deadline
        self.sock: socket.socket | None = None
        self.buf = bytearray()
        self.sent = 0
        self.status: int | None = None
        self.body_error: OSError | None = None   # what cut the answer's body short, if anything
        self.keep_body = False                    # read_answer keeps the body in self.body
        self.body = bytearray()

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def connect(self) -> None:
        self.sock = socket.create_connection((HOST, self.port), timeout=max(self.left(), 0.01))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass

    def send_now(self, data: bytes) -> None:
        self.sock.settimeout(max(self.left(), 0.01))
        self.sock.sendall(data)

    def upload(self, total: int, chunked: bool, piece: int = SEND_PIECE, pace: float = 0.0) -> bool:
        """Sends `total` body bytes (chunked: in chunks of `piece`), `piece` at a time and `pace`
        seconds apart; stops early, returning False, once the server has something to say."""
        def pieces():
            left = total
            while left > 0:
                n = min(piece, left)
                yield PIECE[:n]
                left -= n
        return self.send_chunks(pieces(), chunked, pace)

    def send_chunks(self, chunks, chunked: bool, pace: float = 0.0) -> bool:
        """Sends the body `chunks` (chunked: each one a chunk), `pace` seconds apart; stops early,
        returning False, once the server has something to say. `sent` counts the body bytes."""
        self.sock.setblocking(False)
        try:
            chunks = iter(chunks)
            data_next = next(chunks, None)
            while data_next is not None:
                data_now, data_next = data_next, next(chunks, None)
                n = len(data_now)
                data = data_now if not chunked else b"%x\r\n" % n + data_now + b"\r\n"
                view, off = memoryview(data), 0
                while off < len(view):
                    left = self.left()
                    if left <= 0:
                        raise TimeoutError
                    readable, writable, _ = select.select([self.sock], [self.sock], [], min(left, 1.0))
                    if readable:
                        return False
                    if writable:
                        try:
                            off += self.sock.send(view[off:])
                        except BlockingIOError:
                            pass
                self.sent += n
                if pace and data_next is not None:
                    readable, _, _ = select.select([self.sock], [], [], min(pace, max(self.left(), 0)))
                    if readable:
                        return False
            if chunked:
                self.sock.setblocking(True)
                self.send_now(b"0\r\n\r\n")
            return True
        finally:
            self.sock.setblocking(True)

    def _more(self) -> bool:
        left = self.left()
        if left <= 0:
            raise TimeoutError
        self.sock.settimeout(left)
        data = self.sock.recv(256 * 1024)
        if not data:
            return False
        self.buf += data
        return True

    def _take(self, n: int | None = None) -> None:
        """Drops the first `n` buffered bytes (all by default), keeping them when keep_body is set."""
        n = len(self.buf) if n is None else n
        if self.keep_body:
            self.body += self.buf[:n]
        del self.buf[:n]

    def read_answer(self) -> tuple[int, dict[str, str], int, bool]:
        """Status, headers, body bytes read and whether the body was whole (by Content-Length,
        chunked, or until the close). Raises on a reset, close or timeout before the status."""
        while b"\r\n\r\n" not in self.buf:
            if not self._more():
                raise EOFError
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ValueError(f"bad status line {lines[0][:60]!r}")
        self.status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.buf = bytearray(rest)
        got, whole = 0, False
        try:
            if "content-length" in headers:
                want = int(headers["content-length"])
                got = len(self.buf)
                self._take()
                while got < want and self._more():
                    got += len(self.buf)
                    self._take()
                whole = got == want
            elif "chunked" in headers.get("transfer-encoding", "").lower():
                got, whole = self._read_chunked()
            else:
                got = len(self.buf)
                self._take()
                while self._more():
                    got += len(self.buf)
                    self._take()
                whole = True
        except (OSError, TimeoutError) as e:
            self.body_error = e
            whole = False
        return self.status, headers, got, whole

    def read_to_end(self) -> str:
        """Reads and drops what the server still sends until it closes: "fin" (an orderly close),
        "reset", or "open" when the deadline came first."""
        try:
            while self._more():
                self.buf.clear()
            return "fin"
        except ConnectionResetError:
            return "reset"
        except TimeoutError:
            return "open"
        except OSError as e:
            return RESET_ERRNOS.get(e.errno, type(e).__name__)

    def _read_chunked(self) -> tuple[int, bool]:
        got = 0
        while True:
            while b"\r\n" not in self.buf:
                if not self._more():
                    return got, False
            size_line, _, rest = bytes(self.buf).partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            self.buf = bytearray(rest)
            while len(self.buf) < size + 2:
                if not self._more():
                    return got, False
            got += size
            self._take(size)
            del self.buf[:2]
            if size == 0:
                return got, True


def upload_head(port: int, length: int, chunked: bool) -> bytes:
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {length}"
    return (f"POST /echo HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/octet-stream\r\n"
            f"{framing}\r\n\r\n").encode("ascii")


def connected(ex: Exchange, result: dict) -> bool:
    """Connects ex; on failure records outcome "connect_failed" in result and returns False."""
    try:
        ex.connect()
        return True
    except OSError as e:
        result.update(outcome="connect_failed", detail=str(e)[:120])
        return False


def read_status(ex: Exchange, deadline_s: float) -> tuple[tuple | None, str, str]:
    """Exchange.read_answer, its failure classified: (answer, "", "") when a status line came, else
    (None, outcome, detail) with outcome "timeout", "closed", "reset" (ECONNRESET, EPIPE) or
    "error"."""
    try:
        return ex.read_answer(), "", ""
    except TimeoutError:
        return None, "timeout", f"no status line within {deadline_s:g}s"
    except EOFError:
        return None, "closed", "closed before a status line"
    except OSError as e:
        if e.errno in RESET_ERRNOS:
            return None, "reset", f"{RESET_ERRNOS[e.errno]} before the status line"
        return None, "error", str(e)[:120]
    except ValueError as e:
        return None, "error", str(e)[:120]


def post(port: int, deadline_s: float, length: int, chunked: bool = False, piece: int = SEND_PIECE,
         pace: float = 0.0) -> dict:
    """POST /echo of `length` bytes; the outcome as described in Exchange."""
    started = time.monotonic()
    ex = Exchange(port, started + deadline_s)
    head = upload_head(port, length, chunked)
    result = {"sent": 0}
    try:
        if not connected(ex, result):
            return result
        try:
            ex.send_now(head)
            whole_sent = ex.upload(length, chunked, piece, pace)
        except TimeoutError:
            whole_sent = False
            if not ex_readable(ex):
                result.update(outcome="timeout", detail=f"still uploading after {deadline_s:g}s")
                return result
        except OSError:
            whole_sent = False   # the server closed or reset the upload: its answer may be in the buffer
        result["whole_sent"] = whole_sent
        answer, outcome, detail = read_status(ex, deadline_s)
        if answer is None:
            result.update(outcome=outcome, detail=detail)
            return result
        status, _, got, whole = answer
        result["status"] = status
        if 200 <= status < 300 and not (whole and got == length and whole_sent):
            result.update(outcome="bad_2xx", detail=f"{status} with {got} of {length} bytes echoed")
        elif 200 <= status < 300 or 400 <= status < 600:
            result["outcome"] = str(status)
        else:
            result.update(outcome=f"unexpected_{status}", detail=f"status {status}")
        return result
    finally:
        result["sent"] = ex.sent
        result["seconds"] = round(time.monotonic() - started, 3)
        ex.close()


def refused_upload(port: int, deadline_s: float, length: int, chunked: bool) -> dict:
    """POST /echo of `length` bytes, over the server's limit: the body is streamed until the server
    answers or closes (Exchange.upload stops as soon as the socket is readable), the status line and
    answer read, then the connection read to its end. The outcome is the status ("413") when no
    reset (ECONNRESET, EPIPE) came before it, else "reset" (the status, if one was still read after
    the reset, kept in "status"), or "closed", "timeout", "error", "connect_failed" before a status.
    Recorded: sent (body bytes), to_status_s (from the connect to the status line read), end (how
    the connection ended after the status: "fin", "reset" or "open" at the deadline), seconds."""
    started = time.monotonic()
    ex = Exchange(port, started + deadline_s)
    head = upload_head(port, length, chunked)
    result: dict = {"kind": "chunked" if chunked else "content-length", "sent": 0, "status": None,
                    "reset_before_status": None, "to_status_s": None, "end": None}
    try:
        if not connected(ex, result):
            return result
        try:
            ex.send_now(head)
            ex.upload(length, chunked)
        except TimeoutError:
            if not ex_readable(ex):
                result.update(outcome="timeout", detail=f"still uploading after {deadline_s:g}s")
                return result
        except OSError as e:
            if e.errno not in RESET_ERRNOS:
                result.update(outcome="error", detail=f"while sending: {str(e)[:100]}")
                return result
            result["reset_before_status"] = f"{RESET_ERRNOS[e.errno]} while sending"
        answer, outcome, detail = read_status(ex, deadline_s)
        if answer is None:
            if outcome == "reset":
                result["reset_before_status"] = result["reset_before_status"] or detail
                detail = result["reset_before_status"]
            result.update(outcome=outcome, detail=detail)
            return result
        status = answer[0]
        result["status"] = status
        result["to_status_s"] = round(time.monotonic() - started, 3)
        if isinstance(ex.body_error, OSError) and ex.body_error.errno in RESET_ERRNOS:
            result["end"] = "reset"
        else:
            result["end"] = ex.read_to_end()
        if result["reset_before_status"]:
            result.update(outcome="reset", detail=f"{result['reset_before_status']}, then status {status} read")
        else:
            result["outcome"] = str(status)
            if status != UPLOAD_STATUS:
                result["detail"] = f"status {status}, not {UPLOAD_STATUS}"
        return result
    finally:
        result["sent"] = ex.sent
        result["seconds"] = round(time.monotonic() - started, 3)
        ex.close()


MULTIPART_BOUNDARY = "----spindleHostileBoundary7MA4YWxkTrZu0gW"
MULTIPART_FIELD = "hostile upload"


def multipart_body(length: int) -> tuple[bytes, int, bytes]:
    """The multipart/form-data body of POST /multipart: its head (the field, then the file part's
    header section), the file's length (PIECE repeated) and its tail (the close delimiter)."""
    b = MULTIPART_BOUNDARY
    head = (f"--{b}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{MULTIPART_FIELD}\r\n"
            f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"hostile.bin\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode("ascii")
    delimiter = f"\r\n--{b}".encode("ascii")
    if delimiter in PIECE + PIECE[:len(delimiter)]:
        raise ValueError("the upload's content holds its own delimiter: pick another boundary")
    return head, length, f"\r\n--{b}--\r\n".encode("ascii")


def multipart_digest(length: int) -> str:
    """The SHA-256 of a file of `length` bytes of PIECE repeated."""
    digest = hashlib.sha256()
    full, rest = divmod(length, len(PIECE))
    for _ in range(full):
        digest.update(PIECE)
    digest.update(PIECE[:rest])
    return digest.hexdigest()


def multipart_upload(port: int, deadline_s: float, length: int, chunked: bool, digest: str) -> dict:
    """POST /multipart of a field and a file of `length` bytes; the outcome is "200" when the
    answer names the field, the size and `digest`, else "bad_2xx", the status, or what came
    before one ("reset", "closed", "timeout", ...)."""
    started = time.monotonic()
    ex = Exchange(port, started + deadline_s)
    ex.keep_body = True
    head, size, tail = multipart_body(length)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(head) + size + len(tail)}"
    request = (f"POST /multipart HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
               f"Content-Type: multipart/form-data; boundary={MULTIPART_BOUNDARY}\r\n{framing}\r\n\r\n").encode("ascii")

    def chunks():
        yield head
        left = size
        while left > 0:
            n = min(len(PIECE), left)
            yield PIECE[:n]
            left -= n
        yield tail

    result: dict = {"kind": "chunked" if chunked else "content-length", "sent": 0}
    try:
        if not connected(ex, result):
            return result
        try:
            ex.send_now(request)
            whole_sent = ex.send_chunks(chunks(), chunked)
        except TimeoutError:
            result.update(outcome="timeout", detail=f"still uploading after {deadline_s:g}s")
            return result
        except OSError:
            whole_sent = False
        answer, outcome, detail = read_status(ex, deadline_s)
        if answer is None:
            result.update(outcome=outcome, detail=detail)
            return result
        status, _, _, whole = answer
        result["status"] = status
        result["answer"] = bytes(ex.body[:600]).decode("utf-8", "replace")
        if status != 200:
            result.update(outcome=str(status), detail=f"status {status}: {result['answer'][:100]}")
            return result
        try:
            answer = json.loads(ex.body)
            files = answer["files"]
            ok = (whole and whole_sent and answer["fields"] == {"title": MULTIPART_FIELD} and len(files) == 1
                  and files[0]["size"] == size and files[0]["sha256"] == digest and files[0]["filename"] == "hostile.bin")
        except (ValueError, KeyError, TypeError):
            ok = False
        result["outcome"] = "200" if ok else "bad_2xx"
        if not ok:
            result["detail"] = f"200 without the file's size {size} and SHA-256 {digest[:12]}...: {result['answer'][:160]}"
        return result
    finally:
        result["sent"] = ex.sent
        result["seconds"] = round(time.monotonic() - started, 3)
        ex.close()


def ex_readable(ex: Exchange) -> bool:
    try:
        readable, _, _ = select.select([ex.sock], [], [], 0)
        return bool(readable)
    except (OSError, ValueError):
        return False


def answered(outcome: str) -> bool:
    return outcome.isdigit() and (200 <= int(outcome) < 300 or 400 <= int(outcome) < 600)


# --- the health prober -------------------------------------------------------------------------

class Health:
    """GET /plaintext on a new connection every HEALTH_INTERVAL, each probe's latency recorded
    with the phase it fell in."""

    def __init__(self, port: int, tsv: Path) -> None:
        self.port = port
        self.phase = "start"
        self.stop = threading.Event()
        self.rows: list[tuple[float, str, float, str]] = []
        self.tsv = tsv
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(HEALTH_TIMEOUT + 2)
        with open(self.tsv, "w", encoding="ascii") as f:
            f.write("t_s\tphase\tlatency_ms\tresult\n")
            for t, phase, ms, res in self.rows:
                f.write(f"{t:.3f}\t{phase}\t{ms:.1f}\t{res}\n")

    def _probe(self) -> tuple[float, str]:
        started = time.monotonic()
        ex = Exchange(self.port, started + HEALTH_TIMEOUT)
        try:
            ex.connect()
            ex.send_now(f"GET /plaintext HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n\r\n".encode("ascii"))
            answer, outcome, _ = read_status(ex, HEALTH_TIMEOUT)
            if answer is None:
                res = outcome
            else:
                status, _, got, whole = answer
                res = "ok" if status == 200 and got == 13 and whole else f"status_{status}_{got}B"
        except TimeoutError:
            res = "timeout"
        except OSError as e:
            res = "reset" if e.errno in RESET_ERRNOS else type(e).__name__
        finally:
            ex.close()
        return (time.monotonic() - started) * 1000, res

    def _loop(self) -> None:
        while not self.stop.is_set():
            began = time.monotonic()
            phase = self.phase
            ms, res = self._probe()
            if res == "ok" and ms > HEALTH_LIMIT * 1000:
                res = "slow"
            self.rows.append((began - self.t0, phase, ms, res))
            self.stop.wait(max(0.0, HEALTH_INTERVAL - (time.monotonic() - began)))

    def summary(self, phase: str | None = None) -> dict:
        rows = [r for r in self.rows if phase is None or r[1] == phase]
        lat = sorted(r[2] for r in rows)
        return {
            "probes": len(rows),
            "failed": sum(1 for r in rows if r[3] != "ok"),
            "by_result": dict(Counter(r[3] for r in rows)),
            "max_ms": round(lat[-1], 1) if lat else None,
            "p50_ms": round(lat[len(lat) // 2], 1) if lat else None,
        }


# --- phases ------------------------------------------------------------------------------------

def run_parallel(jobs: list, workers: int) -> list[dict]:
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda job: job(), jobs))


def phase_oversized(port: int, p: dict, _out: Path) -> list[dict]:
    jobs = [lambda c=c: dict(post(port, p["deadline"], p["length"], chunked=c), kind="chunked" if c else "content-length")
            for c in [False] * p["each"] + [True] * p["each"]]
    return run_parallel(jobs, len(jobs))


def phase_uploads(port: int, p: dict, _out: Path) -> list[dict]:
    """`uploads` refused uploads, `concurrency` at a time, Content-Length and chunked in turn."""
    jobs = [lambda c=i % 2 == 1: refused_upload(port, p["deadline"], p["length"], chunked=c)
            for i in range(p["uploads"])]
    return run_parallel(jobs, p["concurrency"])


def phase_raised(port: int, p: dict, _out: Path) -> list[dict]:
    jobs = [lambda: dict(post(port, p["deadline"], p["length"]), kind="content-length")
            for _ in range(p["clients"])]
    return run_parallel(jobs, len(jobs))


def phase_multipart(port: int, p: dict, _out: Path) -> list[dict]:
    """`uploads` multipart uploads at once, Content-Length and chunked in turn."""
    digest = multipart_digest(p["length"])
    jobs = [lambda c=i % 2 == 1: multipart_upload(port, p["deadline"], p["length"], c, digest) for i in range(p["uploads"])]
    return run_parallel(jobs, len(jobs))


def phase_slow(port: int, p: dict, _out: Path) -> list[dict]:
    half = p["connections"] // 2
    paces = [("within_header_timeout", p["fast_pace"])] * half + [("beyond_header_timeout", p["slow_pace"])] * (p["connections"] - half)
    jobs = [lambda k=k, pace=pace: dict(post(port, p["deadline"], p["length"], piece=p["step"], pace=pace), kind=k)
            for k, pace in paces]
    return run_parallel(jobs, len(jobs))


def phase_medium(port: int, p: dict, _out: Path) -> list[dict]:
    end = time.monotonic() + p["seconds"]
    results: list[dict] = []
    lock = threading.Lock()

    def client(seed: int) -> None:
        rnd = random.Random(seed)
        while time.monotonic() < end:
            r = post(port, p["deadline"], rnd.randint(p["min"], p["max"]))
            r["kind"] = "medium"
            with lock:
                results.append(r)
            if not answered(r["outcome"]):
                time.sleep(0.2)   # a failing server is not hammered in a tight loop

    with ThreadPoolExecutor(max_workers=p["clients"]) as pool:
        list(pool.map(client, range(p["clients"])))
    return results


AB_FIELDS = {
    "complete": r"^Complete requests:\s+(\d+)",
    "failed": r"^Failed requests:\s+(\d+)",
    "non2xx": r"^Non-2xx responses:\s+(\d+)",
    "rps": r"^Requests per second:\s+([\d.]+)",
}
AB_FAILED = re.compile(r"\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)")
AB_ABORTED = re.compile(r"\(be patient\)\.*(\S[^\n]*\(\d+\))")
AB_TOTAL = re.compile(r"^Total of (\d+) requests completed", re.M)


def parse_ab(text: str, requests: int) -> dict:
    """ab's output as answer counts: 2xx, non-2xx, ab_failed (connect, receive, exception),
    not_completed; when ab gave up (it does on the first request without an answer within -s),
    the requests it had completed are known by number only."""
    got = {k: (m.group(1) if (m := re.search(rx, text, re.M)) else None) for k, rx in AB_FIELDS.items()}
    row: dict = {"rps": got["rps"], "counts": Counter()}
    complete = int(got["complete"] or 0)
    if got["complete"] is None and (m := AB_ABORTED.search(text)):
        total = AB_TOTAL.search(text)
        complete = int(total.group(1)) if total else 0
        row["aborted"] = m.group(1).strip()
        row["counts"]["completed_before_ab_gave_up"] += complete
    else:
        m = AB_FAILED.search(text)
        connect, receive, _length, exceptions = (int(x) for x in m.groups()) if m else (0, 0, 0, 0)
        broken = min(connect + receive + exceptions, complete)   # ab may count one request twice
        non2xx = int(got["non2xx"] or 0)
        row["counts"]["2xx"] += max(0, complete - non2xx - broken)
        row["counts"]["non-2xx"] += non2xx
        if broken:
            row["counts"]["ab_failed"] += broken
    if requests > complete:
        row["counts"]["not_completed"] += requests - complete
    return row


def phase_churn(port: int, p: dict, out: Path) -> list[dict]:
    """ab without keep-alive, `rounds` times; one result row per round."""
    results: list[dict] = []
    for i in range(1, p["rounds"] + 1):
        path = out / f"ab-{i}.txt"
        cmd = ["ab", "-r", "-q", "-n", str(p["requests"]), "-c", str(p["concurrency"]), "-s", str(p["timeout"]),
               f"http://{HOST}:{port}/plaintext"]
        with open(path, "w", encoding="utf-8") as f:
            f.write("$ " + " ".join(cmd) + "\n")
            f.flush()
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=300, check=False).returncode
        row = parse_ab(path.read_text(encoding="utf-8", errors="replace"), p["requests"])
        row.update(kind=f"ab round {i}", ab_rc=rc)
        results.append(row)
    return results


PHASE_FUNCS = {"oversized": phase_oversized, "uploads": phase_uploads, "raised": phase_raised,
               "multipart": phase_multipart, "slow": phase_slow, "medium": phase_medium, "churn": phase_churn}


def tally(phase: str, rows: list[dict]) -> dict:
    counts: Counter = Counter()
    details: list[str] = []
    extra = {}
    if phase == "churn":
        for r in rows:
            counts.update(r["counts"])
        extra["ab_rounds"] = [{"round": r["kind"], "rc": r["ab_rc"], "rps": r["rps"], "counts": dict(r["counts"]),
                               "aborted": r.get("aborted")} for r in rows]
        details += [f"{r['kind']}: ab gave up ({r['aborted']}), {r['counts']['not_completed']} request(s) not completed"
                    for r in rows if r.get("aborted")]
        # an ab that gave up counts the requests it never completed (not_completed)
        failed = sum(n for k, n in counts.items() if k not in ("2xx", "non-2xx", "completed_before_ab_gave_up"))
    else:
        by_kind: dict[str, Counter] = {}
        for r in rows:
            counts[r["outcome"]] += 1
            by_kind.setdefault(r["kind"], Counter())[r["outcome"]] += 1
            if not answered(r["outcome"]) and len(details) < 10:
                details.append(f"{r['kind']}: {r['outcome']} after {r['seconds']}s, {r['sent']} B sent; {r.get('detail', '')}")
        extra["by_kind"] = {k: dict(v) for k, v in by_kind.items()}
        extra["max_seconds"] = max((r["seconds"] for r in rows), default=None)
        failed = sum(n for k, n in counts.items() if not answered(k))
        if phase == "multipart":
            # only the stored file's digest answers a multipart upload: a 413 or 503 fails it too
            failed = sum(n for k, n in counts.items() if k != "200")
            details[:] = [f"{r['kind']}: {r['outcome']} after {r['seconds']}s, {r['sent']} B sent; {r.get('detail', '')}"
                          for r in rows if r["outcome"] != "200"][:10]
            extra["multipart"] = [{"kind": r["kind"], "outcome": r["outcome"], "seconds": r["seconds"], "sent": r["sent"],
                                   "answer": r.get("answer")} for r in rows]
        if phase == "uploads":
            extra["uploads"] = upload_figures(rows)
            failed = sum(n for k, n in counts.items() if k != str(UPLOAD_STATUS))
            details[:] = [f"{r['kind']}: {r['outcome']} after {r['seconds']}s, {r['sent']} B sent; {r.get('detail', '')}"
                          for r in rows if r["outcome"] != str(UPLOAD_STATUS)][:10]
    return {"requests": sum(counts.values()), "answers": dict(counts), "failed": failed,
            "failure_examples": details, **extra}


def upload_figures(rows: list[dict]) -> dict:
    """The uploads phase's figures, in all and per framing: statuses read (the 413s among them),
    resets before the status (failures) and after it (allowed), how the connections ended after
    the status, and the seconds to the status (p50, max) of the uploads that read one."""
    def figures(rs: list[dict]) -> dict:
        times = sorted(r["to_status_s"] for r in rs if r.get("to_status_s") is not None)
        return {
            "uploads": len(rs),
            "read_413": sum(1 for r in rs if r.get("status") == UPLOAD_STATUS and not r.get("reset_before_status")),
            "statuses": dict(Counter(str(r["status"]) for r in rs if r.get("status") is not None)),
            "resets_before_status": sum(1 for r in rs if r.get("reset_before_status")),
            "resets_after_status": sum(1 for r in rs if r.get("end") == "reset"),
            "ends": dict(Counter(r["end"] for r in rs if r.get("end"))),
            "to_status_p50_s": times[len(times) // 2] if times else None,
            "to_status_max_s": times[-1] if times else None,
            "sent_max_mb": round(max((r.get("sent", 0) for r in rs), default=0) / MB, 1),
        }
    kinds = sorted({r["kind"] for r in rows})
    return {**figures(rows), "by_kind": {k: figures([r for r in rows if r["kind"] == k]) for k in kinds}}


def cmd_run(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sizes = QUICK if args.quick else FULL
    phases = [p for p in args.phases.split(",") if p]
    for p in phases:
        if p not in PHASE_FUNCS:
            print(f"unknown phase {p!r}; known: {', '.join(PHASES)}", file=sys.stderr)
            return 2
    health = Health(args.port, out / "health.tsv")
    health.start()
    time.sleep(1.0)   # a few probes on the quiet server first
    report: dict = {"phases": {}, "sizes": {p: sizes[p] for p in phases}, "server_pid": args.pid}
    for phase in phases:
        if not alive(args.pid):
            report["phases"][phase] = {"skipped": "the server had exited"}
            continue
        print(f"hostile-memory:   phase {phase} ...", file=sys.stderr, flush=True)
        health.phase = phase
        began = time.monotonic()
        rows = PHASE_FUNCS[phase](args.port, sizes[phase], out)
        result = tally(phase, rows)
        result["seconds"] = round(time.monotonic() - began, 1)
        result["health"] = health.summary(phase)
        report["phases"][phase] = result
        print(f"hostile-memory:     {result['requests']} requests, answers {result['answers']}, "
              f"health max {result['health']['max_ms']} ms, {result['health']['failed']} probe(s) failed",
              file=sys.stderr, flush=True)
        if "uploads" in result:
            u = result["uploads"]
            print(f"hostile-memory:     {u['read_413']} read {UPLOAD_STATUS}, {u['resets_before_status']} reset(s) before "
                  f"the status, {u['resets_after_status']} after, to the status max {u['to_status_max_s']} s",
                  file=sys.stderr, flush=True)
    health.phase = "settle"
    time.sleep(SETTLE_S)
    health.finish()
    report["health"] = health.summary()
    report["health"]["settle"] = health.summary("settle")
    cpu = None
    if alive(args.pid):
        try:
            c0, t0 = cpu_seconds(args.pid), time.monotonic()
            time.sleep(CPU_WINDOW_S)
            cpu = round(100 * (cpu_seconds(args.pid) - c0) / (time.monotonic() - t0), 1)
        except OSError:
            cpu = None
    report["cpu_after_pct"] = cpu
    report["alive_at_end"] = alive(args.pid)
    with open(out / "client.json", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    return 0


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# --- report ------------------------------------------------------------------------------------

GC_LINE = re.compile(r"GC\(\d+\) (Pause [^(]*?)(?: \([^)]*\))*\s+(\d+)M->(\d+)M\((\d+)M\)")


def gc_peak(path: Path) -> tuple[int | None, int | None, int]:
    """(peak MiB before a collection, heap capacity MiB, full collections) from -Xlog:gc."""
    peak = cap = None
    full = 0
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None, None, 0
    for m in GC_LINE.finditer(text):
        before, capacity = int(m.group(2)), int(m.group(4))
        peak = before if peak is None else max(peak, before)
        cap = capacity if cap is None else max(cap, capacity)
        if "Full" in m.group(1):
            full += 1
    return peak, cap, full


def oom_lines(launch_dir: Path) -> int:
    n = 0
    for name in ("server.out", "server.err"):
        try:
            with open(launch_dir / name, encoding="utf-8", errors="replace") as f:
                n += sum(1 for line in f if "OutOfMemoryError" in line)
        except OSError:
            pass
    return n


def read_tsv(path: Path) -> dict[str, str]:
    meta: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("\t")
                meta[key] = value
    except OSError:
        pass
    return meta


def judge_launch(launch_dir: Path) -> dict:
    launch = read_tsv(launch_dir / "launch.tsv")
    client = {}
    try:
        client = json.loads((launch_dir / "client.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    peak, cap, full = gc_peak(launch_dir / "gc.log")
    ooms = oom_lines(launch_dir)
    reasons: list[str] = []
    notes: list[str] = []
    one_at_a_time = launch_dir.parent.name in ONE_AT_A_TIME
    if launch.get("started") != "yes":
        reasons.append(f"did not start: {launch.get('start_error', '?')}")
    if not client:
        reasons.append("no client results")
    for name, ph in client.get("phases", {}).items():
        if "skipped" in ph:
            reasons.append(f"{name}: skipped ({ph['skipped']})")
            continue
        if ph["failed"]:
            (notes if one_at_a_time and name == "slow" else reasons).append(
                f"{name}: {ph['failed']} of {ph['requests']} request(s) not answered")
    h = client.get("health", {})
    if h and h.get("failed"):
        (notes if one_at_a_time else reasons).append(
            f"health: {h['failed']} of {h['probes']} probe(s) failed or took over {HEALTH_LIMIT:g} s (max {h['max_ms']} ms)")
    if ooms:
        reasons.append(f"{ooms} OutOfMemoryError line(s) in the server's output")
    cpu = client.get("cpu_after_pct")
    if client and cpu is None:
        reasons.append("CPU after not measured (server gone)")
    elif cpu is not None and cpu >= CPU_IDLE_PCT:
        reasons.append(f"CPU after the load {cpu} % of a core (limit {CPU_IDLE_PCT:g} %)")
    if client and not client.get("alive_at_end"):
        reasons.append("the server exited during the run")
    stop = launch.get("stop", "")
    if stop and "killed" in stop:
        reasons.append(f"stop: {stop}")
    return {"launch": launch, "client": client, "peak_heap_mib": peak, "heap_cap_mib": cap, "full_gcs": full,
            "oom_lines": ooms, "reasons": reasons, "notes": notes, "pass": not reasons}


UPLOAD_COLS = ["uploads_read_413", "uploads_resets_before_status", "uploads_resets_after_status",
               "uploads_to_status_p50_s", "uploads_to_status_max_s"]


def upload_cells(u: dict | None) -> list:
    """The uploads phase's summary.tsv cells (UPLOAD_COLS); empty for the other phases."""
    if not u:
        return [""] * len(UPLOAD_COLS)
    return [u["read_413"], u["resets_before_status"], u["resets_after_status"], u["to_status_p50_s"], u["to_status_max_s"]]


def secs(value) -> str:
    return "-" if value is None else f"{value} s"


def ms(value) -> str:
    return "-" if value is None else f"{value} ms"


def fmt_answers(answers: dict) -> str:
    return ", ".join(f"{k} × {v}" for k, v in sorted(answers.items(), key=lambda kv: (-kv[1], kv[0]))) or "-"


def cmd_report(args) -> int:
    run = Path(args.run_dir)
    meta = read_tsv(run / "meta.tsv")
    servers = [s for s in meta.get("servers", "").split(",") if s]
    results: dict[str, dict[str, dict]] = {}
    for server in servers:
        for launch_dir in sorted((run / "raw" / server).glob("*/")):
            results.setdefault(server, {})[launch_dir.name] = judge_launch(launch_dir)
    tsv_cols = ["server", "launch", "phase", "verdict", "requests", "answers", "failed", "health_probes",
                "health_failed", "health_max_ms", "peak_heap_mib", "heap_mib", "full_gcs", "cpu_after_pct", "oom_lines",
                *UPLOAD_COLS]
    with open(run / "summary.tsv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(tsv_cols)
        for server, launches in results.items():
            for name, j in launches.items():
                common = [j["peak_heap_mib"], j["heap_cap_mib"], j["full_gcs"], j["client"].get("cpu_after_pct"), j["oom_lines"]]
                verdict = "PASS" if j["pass"] else "FAIL"
                for phase, ph in j["client"].get("phases", {}).items():
                    if "skipped" in ph:
                        w.writerow([server, name, phase, verdict, 0, "skipped", "", "", "", "", *common, *upload_cells(None)])
                        continue
                    h = ph["health"]
                    w.writerow([server, name, phase, verdict, ph["requests"], fmt_answers(ph["answers"]), ph["failed"],
                                h["probes"], h["failed"], h["max_ms"], *common, *upload_cells(ph.get("uploads"))])
                h = j["client"].get("health", {})
                w.writerow([server, name, "all", verdict, "", "", "", h.get("probes"), h.get("failed"), h.get("max_ms"), *common,
                            *upload_cells(None)])

    failed_servers = [s for s, ls in results.items() if not all(j["pass"] for j in ls.values())]
    missing = [s for s in servers if s not in results]
    lines = [f"# Hostile memory run {run.name}", ""]
    verdict = "PASS" if servers and not failed_servers and not missing else "FAIL"
    lines.append(f"**{verdict}**: {len(servers) - len(failed_servers) - len(missing)} of {len(servers)} server(s) passed"
                 + (f"; failed: {', '.join(failed_servers + missing)}" if failed_servers or missing else "") + ".")
    lines += ["", "| server | verdict | launch | requests | failed | health max | probes failed | peak heap | full GCs | CPU after | OOM lines |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for server, launches in results.items():
        for name, j in launches.items():
            phases = j["client"].get("phases", {})
            req = sum(ph.get("requests", 0) for ph in phases.values())
            fail = sum(ph.get("failed", 0) for ph in phases.values())
            h = j["client"].get("health", {})
            heap = f"{j['peak_heap_mib']} / {j['heap_cap_mib']} MiB" if j["peak_heap_mib"] is not None else "n/a"
            cpu = j["client"].get("cpu_after_pct")
            lines.append(f"| {server} | {'PASS' if j['pass'] else 'FAIL'} | {name} | {req} | {fail} | "
                         f"{ms(h.get('max_ms'))} | {h.get('failed', 'n/a')} of {h.get('probes', 'n/a')} | {heap} | "
                         f"{j['full_gcs']} | {'n/a' if cpu is None else f'{cpu} %'} | {j['oom_lines']} |")
    lines += ["", "## Per phase", "",
              "| server | launch | phase | requests | answers | failed | slowest request | health max | probes failed |",
              "|---|---|---|---:|---|---:|---:|---:|---:|"]
    for server, launches in results.items():
        for name, j in launches.items():
            for phase, ph in j["client"].get("phases", {}).items():
                if "skipped" in ph:
                    lines.append(f"| {server} | {name} | {phase} | - | skipped: {ph['skipped']} | | | | |")
                    continue
                slowest = f"{ph['max_seconds']} s" if ph.get("max_seconds") is not None else "-"
                lines.append(f"| {server} | {name} | {phase} | {ph['requests']} | {fmt_answers(ph['answers'])} | "
                             f"{ph['failed']} | {slowest} | {ms(ph['health']['max_ms'])} | "
                             f"{ph['health']['failed']} of {ph['health']['probes']} |")
    upload_rows = [(server, name, ph["uploads"]) for server, launches in results.items() for name, j in launches.items()
                   for ph in j["client"].get("phases", {}).values() if ph.get("uploads")]
    if upload_rows:
        lines += ["", "## Refused uploads", "",
                  f"Each upload over the limit must read its {UPLOAD_STATUS} with no reset before it; resets after the "
                  "status are allowed and counted. Connection ends after the status: fin (orderly close), reset, open "
                  "(still open at the deadline).", "",
                  f"| server | launch | framing | uploads | {UPLOAD_STATUS} read | resets before the status | "
                  "resets after the status | statuses | ends after the status | to the status p50 / max | most sent |",
                  "|---|---|---|---:|---:|---:|---:|---|---|---:|---:|"]
        for server, name, u in upload_rows:
            for framing, f in [("all", u), *sorted(u.get("by_kind", {}).items())]:
                lines.append(f"| {server} | {name} | {framing} | {f['uploads']} | {f['read_413']} | {f['resets_before_status']} | "
                             f"{f['resets_after_status']} | {fmt_answers(f['statuses'])} | {fmt_answers(f['ends'])} | "
                             f"{secs(f['to_status_p50_s'])} / {secs(f['to_status_max_s'])} | {f['sent_max_mb']} MB |")
    multipart_rows = [(server, name, j, ph["multipart"]) for server, launches in results.items()
                      for name, j in launches.items() for ph in j["client"].get("phases", {}).values() if ph.get("multipart")]
    if multipart_rows:
        lines += ["", "## Multipart uploads", "",
                  "Each upload must be answered 200 with its field, the stored file's size and the SHA-256 the client "
                  "computed; the peak heap is the launch's (the uploads and the health probes only).", "",
                  "| server | framing | outcome | seconds | MB/s | peak heap | answer |", "|---|---|---|---:|---:|---:|---|"]
        for server, name, j, uploads in multipart_rows:
            heap = f"{j['peak_heap_mib']} / {j['heap_cap_mib']} MiB" if j["peak_heap_mib"] is not None else "n/a"
            for u in uploads:
                rate = f"{u['sent'] / MB / u['seconds']:.0f}" if u.get("seconds") else "-"
                answer = (u.get("answer") or "").replace("|", "\\|")[:140]
                lines.append(f"| {server} | {u['kind']} | {u['outcome']} | {u['seconds']} | {rate} | {heap} | `{answer}` |")
    lines += ["", "## Why a server failed", ""]
    anything = False
    for server, launches in results.items():
        for name, j in launches.items():
            if j["reasons"]:
                anything = True
                lines.append(f"- **{server}** ({name}): " + "; ".join(j["reasons"]))
                for phase, ph in j["client"].get("phases", {}).items():
                    for ex in ph.get("failure_examples", [])[:3]:
                        lines.append(f"  - {phase}: {ex}")
    for server in missing:
        anything = True
        lines.append(f"- **{server}**: no results (not built or not started)")
    if not anything:
        lines.append("- none")
    not_judged = [(server, name, j["notes"]) for server, launches in results.items()
                  for name, j in launches.items() if j["notes"]]
    if not_judged:
        lines += ["", "## Measured, not judged (one connection at a time by design)", ""]
        lines += [f"- **{server}** ({name}): " + "; ".join(notes) for server, name, notes in not_judged]
    lines += ["", "## Rule", "", VERDICT_RULE.rstrip(), "", "## What each phase sends", "",
              __doc__.split("Phases (sizes for a full run; --quick uses the smaller figures in QUICK):\n", 1)[1]
              .split("\nWhat counts as answered", 1)[0].rstrip(), "",
              f"Sizes of this run: {'--quick' if meta.get('quick') == '1' else 'full'} "
              f"(`{json.dumps(QUICK if meta.get('quick') == '1' else FULL)}`).", "",
              "## Environment", "", "| | |", "|---|---|"]
    for key, value in meta.items():
        cell = value.replace("|", "\\|")
        lines.append(f"| {key} | {cell} |")
    lines += ["", "Raw files: `raw/<server>/<launch>/` — server.out, server.err, gc.log, health.tsv (every probe), "
              "client.json (every count), ab-N.txt, launch.tsv (JVM command line and how the server stopped).", ""]
    (run / "summary.md").write_text("\n".join(lines), encoding="utf-8")
    return 0 if verdict == "PASS" else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--pid", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--phases", required=True)
    r.add_argument("--quick", action="store_true")
    rep = sub.add_parser("report")
    rep.add_argument("run_dir")
    args = ap.parse_args()
    if args.cmd == "run":
        return cmd_run(args)
    with raw_archive.extracted(Path(args.run_dir)):
        return cmd_report(args)


if __name__ == "__main__":
    sys.exit(main())
