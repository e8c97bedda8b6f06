#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Helpers of scripts/benchmark-servers.sh; standard library only (python3 >= 3.9), but for the report's
charts (scripts/lib/charts.py: matplotlib, imported only by `report`).

  bench.py check --port P [--host H] [--tls] [--remote] [--remote-tls] [--remote-h2] [--multipart SIZE]
                                           answers of every benchmark route (exit 1 if wrong); with
                                           --tls over HTTPS (exit 3 if the port speaks plain HTTP);
                                           with --remote also the routes that call a downstream; with
                                           --remote-tls GET /remote-tls/100 (the TLS downstream's); with
                                           --remote-h2 GET /remote-h2/100 (the same, over HTTP/2); with
                                           --multipart also POST /multipart of the wrk body with a
                                           file part of SIZE bytes. A route a row does not serve
                                           (404 to POST /multipart, GET /users-list or
                                           GET /remote-tls/100, GET /remote-h2/100) passes and
                                           prints "absent  POST /multipart": its scenarios are n/a
  bench.py parse OUTPUT                    one wrk or h2load output -> "rps avg_ms p99_ms errors non2xx requests"
  bench.py h2load-latency LOG [--window]   h2load's --log-file -> the percentile line appended to its output
                                           (--window: and a waiting scenario's fixed-window line)
  bench.py report RUN_DIR [--strict] [--readme PATH] [--out DIR]
                                           summary.csv, summary.md, charts/*.svg (exit 1 on failures)
  bench.py readme PATH                     the results/README.md placeholder (no run yet)
  bench.py open-chart STEM LABEL=DIR... --title T [--subtitle S]
                                           percentile chart of scripts/lib/open-load.sh runs (SVG)

The report reads the TSV files the shell script writes into RUN_DIR (meta, servers, scenarios,
measurements, events; starts.tsv when the warm-ups were checked for steady state), so it can be rerun
on a finished or interrupted run directory (with --out, without touching it). Every figure is the true
median of the rounds (for an even number, the mean of the middle two), min–max beside it; open-model
percentiles likewise, percentile by percentile. Only 2xx/3xx answers count (goodput): in req/s, the ratios and
CPU per request, non-2xx/3xx answers and socket errors beside them. A round with no completed request is a failed round,
and a cell with nothing else a failure row. Where RUN_DIR has conformance/<row>.tsv
(scripts/conformance-check.sh's output: case, status, message, rule), every table gets the columns
`RFC 9112` and `contract` (passed/run of that rule's cases, skips apart; a file without the rule
column counts every case as rfc9112; – for a row without a file), summary.csv gets their counts,
and "Conformance failures" under the tables lists each failed case with its message, by rule.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import hashlib
import http.client
import json
import math
import os
import random
import re
import socket
import ssl
import statistics
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import raw_archive


HELLO = b"Hello, World!"
# Same sizes as the echo scenarios (KB = 1024 bytes).
ECHO_SIZES = (72, 10 * 1024, 100 * 1024, 500 * 1024)
PIPELINE_DEPTH = 16
# The multipart-* scenarios' body, as scripts/lib/bench-multipart.lua makes it (keep the two alike).
MULTIPART_BOUNDARY = "----spindleBenchBoundary9Xq2LmVt"
MULTIPART_ALPHABET = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
MULTIPART_FIELD = "bench upload"
# Routes a row may lack (the references serve only what their own module does), with their method: a
# 404 is "absent" and its scenarios n/a, not a wrong answer. The path is the scenarios table's.
OPTIONAL_ROUTES = {"/multipart": "POST", "/users-list": "GET", "/remote-tls/100": "GET", "/remote-h2/100": "GET"}
# GET /users-list (the json-gzip scenario): Spindle's BenchmarkApp.usersList() and the Netty reference's
# Fixtures.usersList() build these bytes the same way; the check compares them (keep the three alike).
USERS_FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus")
USERS_LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth")
USERS_ROLES = ("admin", "editor", "viewer", "owner")
USERS = 20
# A cell whose rounds' req/s spread (highest minus lowest) exceeds this share of the median is noisy.
NOISY_SPREAD = 0.20
NOISY_RULE = f"rounds spread over {NOISY_SPREAD:.0%} of the median"
# CPU per request is coarse where a round's server CPU was read in fewer clock ticks than this (one tick then
# moves the figure by more than 1%), unless measurements.tsv has it in nanoseconds (cpu_ns).
COARSE_TICKS = 100
# A cell whose round 1 has the lowest req/s of its rounds (a rising trend: perhaps still warming).
ROUND1_MARK = "↗"
# A waiting cell whose window share of the bound and Little's-law share disagree by more than its resolution
# or AGREE_WITHIN, whichever is larger.
DISAGREE_MARK = "≠"
AGREE_WITHIN = 0.01


class CheckFailed(Exception):
    pass


DOWNLOAD_BYTES = 1 << 20  # BenchmarkApp.DOWNLOAD_BYTES: byte i of /download is i % 251


def _show(data: bytes, limit: int = 60) -> str:
    text = repr(data[:limit])
    return text + (f"... ({len(data)} bytes)" if len(data) > limit else "")


def _expect_json(data: bytes, expected: object) -> None:
    try:
        got = json.loads(data)
    except ValueError:
        raise CheckFailed(f"body is not JSON: {_show(data)}") from None
    if got != expected:
        raise CheckFailed(f"body {_show(data)}, expected {json.dumps(expected)}")


def multipart_body(file: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body of the field and `file` as the one file part, and its Content-Type."""
    b = MULTIPART_BOUNDARY
    head = (f"--{b}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{MULTIPART_FIELD}\r\n"
            f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bench.bin\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode("ascii")
    return head + file + f"\r\n--{b}--\r\n".encode("ascii"), f"multipart/form-data; boundary={b}"


def users_list() -> bytes:
    """The JSON document GET /users-list answers: USERS small user records, about 2 KB of ASCII."""
    records = []
    for i in range(1, USERS + 1):
        first, last = USERS_FIRST[i % len(USERS_FIRST)], USERS_LAST[i * 3 % len(USERS_LAST)]
        records.append(f'{{"id":{i},"name":"{first} {last}","email":"{first.lower()}.{last.lower()}{i}@example.com",'
                       f'"role":"{USERS_ROLES[i % len(USERS_ROLES)]}","active":{"true" if i % 4 else "false"},'
                       f'"score":{i * 37 % 100}}}')
    return ('{"users":[' + ",".join(records) + "]}").encode("ascii")


def multipart_file(size: int) -> bytes:
    """The file part of the wrk body (bench-multipart.lua): the alphabet repeated to `size` bytes."""
    return (MULTIPART_ALPHABET * (size // len(MULTIPART_ALPHABET) + 1))[:size]


def _read_response(sock_file) -> tuple[int, bytes, bool]:
    """Reads one HTTP/1.1 response (Content-Length or chunked) from a buffered socket file;
    the flag says the server announced `Connection: close`."""
    status_line = sock_file.readline(8192)
    if not status_line:
        raise CheckFailed("connection closed before a response")
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise CheckFailed(f"bad status line {_show(status_line)}")
    status = int(parts[1])
    length, chunked, close = None, False, False
    while True:
        line = sock_file.readline(65536)
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip())
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"connection" and b"close" in value.lower():
            close = True
    if chunked:
        body = bytearray()
        while True:
            size = int(sock_file.readline(1024).split(b";")[0].strip(), 16)
            if size == 0:
                while sock_file.readline(8192) not in (b"\r\n", b"\n", b""):
                    pass
                break
            body += sock_file.read(size)
            sock_file.readline(8)
        return status, bytes(body), close
    if length is None:
        raise CheckFailed("response without Content-Length or chunked encoding")
    return status, sock_file.read(length), close


def tls_context() -> ssl.SSLContext:
    """The client side of the TLS checks: OpenSSL's defaults (as wrk has them), no certificate
    verification (the benchmark's key is self-signed, made per run)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class NoTls(Exception):
    """The port answers plain HTTP: the server was not started with TLS (or ignores its settings)."""


def tls_handshake(host: str, port: int, timeout: float, ctx: ssl.SSLContext) -> str:
    """One handshake, before any check: "TLSv1.3 TLS_AES_256_GCM_SHA384" as negotiated. If it fails
    and the port answers a plain HTTP request, raises NoTls; other failures propagate."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with ctx.wrap_socket(raw, server_hostname=host) as s:
                cipher = s.cipher()
                return f"{s.version()} {cipher[0] if cipher else '?'}"
    except (ssl.SSLError, OSError) as handshake_error:
        try:
            with socket.create_connection((host, port), timeout=timeout) as s:
                s.sendall(f"GET /plaintext HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
                with s.makefile("rb") as f:
                    status, _, _ = _read_response(f)
        except (CheckFailed, OSError, ValueError):
            raise handshake_error from None
        raise NoTls(f"the server does not speak TLS: the port answers plain HTTP (status {status} to GET "
                    f"/plaintext) and fails a TLS handshake ({type(handshake_error).__name__}: {handshake_error})") from None


def run_checks(host: str, port: int, timeout: float, ctx: ssl.SSLContext | None = None,
               remote: bool = False, multipart_sizes: tuple[int, ...] = (),
               absent: list[str] | None = None,
               remote_tls: bool = False, remote_h2: bool = False) -> list[tuple[str, str | None, str | None]]:
    """Every check as (name, None if passed else the reason, a note on how it passed); over
    HTTPS when given a TLS context; with `remote`, the routes calling the downstream too; with
    `remote_tls`, GET /remote-tls/100 (the TLS downstream's /delay/100, the scenario's own path); with
    `remote_h2`, GET /remote-h2/100 (the same downstream, which the row calls over HTTP/2); with
    `multipart_sizes`, POST /multipart of the wrk body of each file size. An optional route the
    server does not serve (404) passes with a note and its path goes to `absent`."""
    results: list[tuple[str, str | None]] = []
    notes: dict[str, str] = {}
    absent = absent if absent is not None else []
    conn: http.client.HTTPConnection | None = None

    def request(method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                answer_headers: dict | None = None):
        """(status, body); `answer_headers`, when given, gets the response's headers (names lower case)."""
        nonlocal conn
        if conn is None:
            if ctx is None:
                conn = http.client.HTTPConnection(host, port, timeout=timeout)
            else:
                conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        if answer_headers is not None:
            answer_headers.update((k.lower(), v) for k, v in response.getheaders())
        if response.will_close:
            conn.close()
            conn = None
        return response.status, data

    def check(name: str, fn) -> None:
        nonlocal conn
        try:
            note = fn()
            if note:
                notes[name] = note
            results.append((name, None))
        except CheckFailed as e:
            results.append((name, str(e)))
        except (OSError, http.client.HTTPException, ValueError) as e:
            results.append((name, f"{type(e).__name__}: {e}"))
            if conn is not None:
                conn.close()
            conn = None  # a broken connection must not fail the next check too

    def status_is(status: int, expected: int = 200) -> None:
        if status != expected:
            raise CheckFailed(f"status {status}, expected {expected}")

    def plaintext():
        status, data = request("GET", "/plaintext")
        status_is(status)
        if data != HELLO:
            raise CheckFailed(f"body {_show(data)}, expected {HELLO!r}")

    def json_route():
        status, data = request("GET", "/json")
        status_is(status)
        _expect_json(data, {"message": "Hello, World!"})

    def users():
        status, data = request("GET", "/users/42")
        status_is(status)
        _expect_json(data, {"id": "42"})

    def echo(size: int):
        def run():
            # Binary, seeded: CR, LF and NUL bytes must come back untouched too.
            body = random.Random(size).randbytes(size)
            status, data = request("POST", "/echo", body, {"Content-Type": "application/octet-stream"})
            status_is(status)
            if data != body:
                where = next((i for i, (a, b) in enumerate(zip(data, body)) if a != b), min(len(data), len(body)))
                raise CheckFailed(f"echoed {len(data)} bytes for {size}, first difference at byte {where}")
        return run

    def blocking():
        start = time.monotonic()
        status, _ = request("GET", "/blocking/10")
        status_is(status)
        if time.monotonic() - start < 0.005:
            raise CheckFailed("answered in under 5 ms; the route should sleep 10 ms")

    def delay():
        start = time.monotonic()
        status, data = request("GET", "/delay/10")
        status_is(status)
        _expect_json(data, {"delayed": 10})
        if time.monotonic() - start < 0.005:
            raise CheckFailed("answered in under 5 ms; the route should wait 10 ms")

    def remote_route(path: str):
        def run():
            # the downstream's /delay/10 body, passed through
            status, data = request("GET", path)
            status_is(status)
            _expect_json(data, {"delayed": 10})
        return run

    def optional_remote_route(path: str):
        # the scenario's path itself, so a 404 here marks exactly its cells n/a
        def run():
            status, data = request("GET", path)
            if status == 404:
                absent.append(path)
                return "not served: 404, its scenario is n/a on this row"
            status_is(status)
            _expect_json(data, {"delayed": 100})
            return None
        return run

    def download():
        status, data = request("GET", "/download")
        status_is(status)
        expected = bytes(i % 251 for i in range(DOWNLOAD_BYTES))
        if data != expected:
            where = next((i for i, (a, b) in enumerate(zip(data, expected)) if a != b), min(len(data), len(expected)))
            raise CheckFailed(f"downloaded {len(data)} bytes of {DOWNLOAD_BYTES}, first difference at byte {where}")

    def multipart(file: bytes, probe: bool):
        def run():
            if "/multipart" in absent:
                return "not served (404 to the probe)"
            body, content_type = multipart_body(file)
            status, data = request("POST", "/multipart", body, {"Content-Type": content_type})
            if probe and status == 404:
                absent.append("/multipart")
                return "not served: 404, its scenarios are n/a on this row"
            status_is(status)
            digest = hashlib.sha256(file).hexdigest()
            _expect_json(data, {"fields": {"title": MULTIPART_FIELD},
                                "files": [{"name": "file", "filename": "bench.bin", "size": len(file), "sha256": digest}]})
            return None
        return run

    def users_list_route(gzip_asked: bool):
        def run():
            # a server that ignores Accept-Encoding must fail here, not be measured answering plain JSON
            if "/users-list" in absent:
                return "not served (404 to the first check)"
            got: dict = {}
            status, data = request("GET", "/users-list", None, {"Accept-Encoding": "gzip"} if gzip_asked else {}, got)
            if status == 404 and not gzip_asked:
                absent.append("/users-list")
                return "not served: 404, its scenarios are n/a on this row"
            status_is(status)
            coding = got.get("content-encoding", "").strip().lower()
            if gzip_asked:
                if coding != "gzip":
                    raise CheckFailed(f"Content-Encoding {coding or '(none)'} to Accept-Encoding: gzip, expected gzip")
                try:
                    data = gzip.decompress(data)
                except (OSError, EOFError, zlib.error) as e:
                    raise CheckFailed(f"body is not gzip: {e}") from None
            elif coding not in ("", "identity"):
                raise CheckFailed(f"Content-Encoding {coding} without Accept-Encoding, expected none")
            expected = users_list()
            if data != expected:
                raise CheckFailed(f"body {_show(data)}, expected the {len(expected)}-byte user list")
            return None
        return run

    def pipelined():
        nonlocal conn
        if conn is not None:  # a one-connection-at-a-time server must be free for this one
            conn.close()
            conn = None
        one = f"GET /plaintext HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
        raw = socket.create_connection((host, port), timeout=timeout)
        with raw if ctx is None else ctx.wrap_socket(raw, server_hostname=host) as s:
            s.sendall(one * PIPELINE_DEPTH)  # one write, like the pipelined wrk scenario
            with s.makefile("rb") as f:
                for i in range(PIPELINE_DEPTH):
                    status, data, close = _read_response(f)
                    if status != 200 or data != HELLO:
                        raise CheckFailed(f"response {i + 1}/{PIPELINE_DEPTH}: status {status}, body {_show(data)}")
                    if close:
                        # Allowed (RFC 9112 9.3.2): the client retries the rest on a new connection.
                        return f"Connection: close after response {i + 1}/{PIPELINE_DEPTH}"
        return None

    check("GET /plaintext", plaintext)
    check("GET /json", json_route)
    check("GET /users/42", users)
    for size in ECHO_SIZES:
        check(f"POST /echo {size} B", echo(size))
    check("GET /blocking/10", blocking)
    check("GET /delay/10", delay)
    if remote:
        check("GET /remote/10", remote_route("/remote/10"))
        check("GET /remote-blocking/10", remote_route("/remote-blocking/10"))
    if remote_tls:
        check("GET /remote-tls/100", optional_remote_route("/remote-tls/100"))
    if remote_h2:
        check("GET /remote-h2/100", optional_remote_route("/remote-h2/100"))
    check("GET /download", download)
    # first without Accept-Encoding (whether the row serves the route at all), then gzip asked for
    check("GET /users-list", users_list_route(False))
    check("GET /users-list gzip", users_list_route(True))
    # first a tiny body (a 404 answered before it is read cannot reset it): whether the row serves
    # the route at all; then a binary file (CR, LF and dashes in it) and the wrk bodies
    check("POST /multipart 100 B file", multipart(multipart_file(100), True))
    check("POST /multipart 64 KB binary file", multipart(random.Random(7).randbytes(64 * 1024), False))
    for size in multipart_sizes:
        check(f"POST /multipart {size} B file (the wrk body)", multipart(multipart_file(size), False))
    check(f"GET /plaintext x{PIPELINE_DEPTH} pipelined", pipelined)
    if conn is not None:
        conn.close()
    return [(name, reason, notes.get(name)) for name, reason in results]


def cmd_check(args) -> int:
    ctx = None
    if args.tls:
        ctx = tls_context()
        try:
            print(f"tls   {tls_handshake(args.host, args.port, args.timeout, ctx)}")
        except NoTls as e:
            print(f"FAIL  TLS handshake: {e}")
            print(e)  # last line: the short reason
            return 3
        except (ssl.SSLError, OSError) as e:
            print(f"FAIL  TLS handshake: {type(e).__name__}: {e}")
            print(f"TLS handshake failed: {type(e).__name__}: {e}")
            return 1
    absent: list[str] = []
    results = run_checks(args.host, args.port, args.timeout, ctx, args.remote, tuple(args.multipart or ()), absent,
                         remote_tls=args.remote_tls, remote_h2=args.remote_h2)
    for path in absent:
        # read by benchmark-servers.sh: this row's scenarios on that path are n/a
        print(f"absent  {OPTIONAL_ROUTES.get(path, 'GET')} {path}")
    for name, reason, note in results:
        if reason is None:
            print(f"ok    {name}" + (f" ({note})" if note else ""))
        else:
            print(f"FAIL  {name}: {reason}")
    failed = [f"{name}: {reason}" for name, reason, _ in results if reason is not None]
    if failed:
        # Last line: the short reason the shell puts in the failure row.
        print(f"{len(failed)} of {len(results)} checks failed; first: {failed[0]}")
        return 1
    return 0



_TIME_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}
_NUM = r"(\d+(?:\.\d+)?)"


@dataclass
class WrkResult:
    rps: float | None = None
    latency_avg_ms: float | None = None
    latency_p99_ms: float | None = None
    percentiles: dict = field(default_factory=dict)
    requests: int | None = None
    seconds: float | None = None
    connect: int = 0
    read: int = 0
    write: int = 0
    timeout: int = 0
    non2xx: int = 0  # answers other than 2xx/3xx (wrk: "Non-2xx or 3xx responses", h2load: its 4xx and 5xx)
    failed: int = 0  # h2load: requests (streams) that failed, errored and timed-out ones included
    errored: int = 0  # h2load: the failed streams that got no HTTP answer (reset, connection lost), part of failed
    good: int | None = None  # h2load: requests answered 2xx/3xx ("succeeded"); None: requests less non2xx
    counted: int | None = None  # the requests the tool's req/s counts (h2load: done less errored); None: requests
    # a fixed window inside the run (bench-window.lua for wrk, h2load's --log-file for h2load): its 2xx/3xx
    # answers, its other answers and its length; None where the run had none
    window_good: int | None = None
    window_other: int | None = None
    window_seconds: float | None = None

    @property
    def socket_errors(self) -> int:
        """Errors beside the answers: wrk's socket errors; h2load's failed streams other than 4xx/5xx answers
        (those are non2xx)."""
        return self.connect + self.read + self.write + self.timeout + max(self.failed - self.non2xx, 0)

    @property
    def good_requests(self) -> int | None:
        """Requests answered 2xx or 3xx: h2load's "succeeded", wrk's requests less its non-2xx/3xx answers (wrk's
        request count includes them)."""
        if self.requests is None:
            return None
        return self.good if self.good is not None else max(self.requests - self.non2xx, 0)

    @property
    def good_rps(self) -> float | None:
        """Goodput: 2xx/3xx answers per second. With a fixed window inside the run, its 2xx/3xx answers ÷ its
        length; otherwise over the tool's whole run, = good requests ÷ the run: the tool's own req/s (which counts
        every answer) scaled by good ÷ the requests it counted."""
        if self.window_seconds:
            return self.window_good / self.window_seconds
        if self.rps is None:
            return None
        base = self.counted if self.counted is not None else self.requests
        good = self.good_requests
        if not base or good is None:
            return self.rps
        return self.rps * good / base


def _ms(number: str, unit: str) -> float:
    return float(number) * _TIME_MS[unit]


def parse_wrk(text: str) -> WrkResult:
    """Parses wrk 4 output; fields wrk did not print stay None (errors default to 0)."""
    r = WrkResult()
    time_unit = r"(us|ms|s|m|h)"
    # Thread-stats line ("Latency   1.79ms  256.38us  9.84ms  88.01%"), not "Latency Distribution".
    m = re.search(rf"^\s*Latency\s+{_NUM}{time_unit}\s+\S+\s+\S+\s+(\S+)", text, re.M)
    # "+/- Stdev" of nan: wrk recorded no latency sample (e.g. a server that closes after each
    # response under pipelining never completes a batch); its zeros are not latencies.
    if m and "nan" not in m.group(3).lower():
        r.latency_avg_ms = _ms(m.group(1), m.group(2))
        for m in re.finditer(rf"^\s*{_NUM}%\s+{_NUM}{time_unit}\s*$", text, re.M):
            value = _ms(m.group(2), m.group(3))
            # wrk 4.1 sometimes prints a 0 us percentile under pipelining although the average
            # is not 0: a bogus figure, left out rather than reported as a perfect latency.
            if value > 0 or r.latency_avg_ms == 0:
                r.percentiles[float(m.group(1))] = value
        r.latency_p99_ms = r.percentiles.get(99.0)
    m = re.search(rf"^\s*(\d+) requests in {_NUM}{time_unit}", text, re.M)
    if m:
        r.requests = int(m.group(1))
        r.seconds = _ms(m.group(2), m.group(3)) / 1000.0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        r.connect, r.read, r.write, r.timeout = (int(g) for g in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if m:
        r.non2xx = int(m.group(1))
    _parse_window(text, r)
    m = re.search(rf"^Requests/sec:\s+{_NUM}([kKmMgG]?)\s*$", text, re.M)
    if m:
        r.rps = float(m.group(1)) * _SUFFIX[m.group(2)]
    return r


H2LOAD_PERCENTILES = (50.0, 75.0, 90.0, 99.0, 99.9, 100.0)
H2LOAD_LATENCY_LINE = "latency percentiles from h2load's --log-file"


WINDOW_LINE = "window:"


def _parse_window(text: str, r: WrkResult) -> None:
    """The fixed window's line ("window: G good, O other answers in S s"), from bench-window.lua's done() or the
    benchmark script's h2load log reading."""
    m = re.search(rf"^{WINDOW_LINE} (\d+) good, (\d+) other answers in {_NUM} s\s*$", text, re.M)
    if m:
        r.window_good, r.window_other, r.window_seconds = int(m.group(1)), int(m.group(2)), float(m.group(3))


def parse_h2load(text: str) -> WrkResult:
    """Parses h2load's output (duration mode): req/s from "finished in T, R req/s" (the streams of the timed
    window that closed without a reset, whatever their status, over its length), the requests done, succeeded
    (answered 2xx or 3xx: the goodput's count), failed (4xx/5xx answers, errored and timed-out streams) and
    errored, the status codes (4xx and 5xx count as non-2xx/3xx), the mean of "time for request", and the
    percentiles the benchmark script appends from h2load's --log-file (h2load prints none)."""
    r = WrkResult()
    m = re.search(rf"^finished in {_NUM}(us|ms|s|m|h), {_NUM} req/s", text, re.M)
    if m:
        r.rps = float(m.group(3))
    m = re.search(r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                  r"(\d+) errored, (\d+) timeout", text, re.M)
    if m:
        r.requests = int(m.group(3))
        r.good = int(m.group(4))
        r.failed = int(m.group(5))
        r.errored = int(m.group(6))
        r.counted = max(r.requests - r.errored, 0)
        if r.rps:
            r.seconds = r.counted / r.rps
    m = re.search(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text, re.M)
    if m:
        r.non2xx = int(m.group(3)) + int(m.group(4))
    m = re.search(rf"^time for request:\s+{_NUM}(us|ms|s)\s+{_NUM}(us|ms|s)\s+{_NUM}(us|ms|s)", text, re.M)
    if m and r.requests:
        r.latency_avg_ms = _ms(m.group(5), m.group(6))
    _parse_window(text, r)
    m = re.search(rf"^{H2LOAD_LATENCY_LINE} \((\d+) requests\): (.*)$", text, re.M)
    if m:
        for p, v in re.findall(rf"p([\d.]+) {_NUM}ms", m.group(2)):
            r.percentiles[float(p)] = float(v)
        r.latency_p99_ms = r.percentiles.get(99.0)
    return r


def is_h2load(text: str) -> bool:
    return re.search(r"^finished in .* req/s", text, re.M) is not None and "\nrequests: " in text


def parse_result(text: str) -> WrkResult:
    """One cell's output, whichever generator wrote it: h2load (the HTTP/2 scenarios) or wrk."""
    return parse_h2load(text) if is_h2load(text) else parse_wrk(text)


def h2load_latency_line(log: Path) -> str:
    """The percentiles of h2load's per-request log (start µs, status, µs to the end of the response; one row
    per request of the timed window), nearest-rank, as the line parse_h2load reads."""
    times = []
    with log.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) >= 3 and parts[2].strip().isdigit():
                times.append(int(parts[2]))
    if not times:
        return f"{H2LOAD_LATENCY_LINE} (0 requests): none"
    times.sort()
    n = len(times)
    picks = []
    for p in H2LOAD_PERCENTILES:
        rank = max(1, min(n, -(-int(p * n * 10) // 1000)))  # ceil(p/100 * n), in integers
        picks.append(f"p{p:g} {times[rank - 1] / 1000:.3f}ms")
    return f"{H2LOAD_LATENCY_LINE} ({n} requests): {' '.join(picks)}"


def h2load_window_line(log: Path) -> str | None:
    """A fixed window inside h2load's timed window, from its per-request log, as the "window:" line parse_h2load
    reads: the streams of a connection start together and stay in step, so a count of the requests that ended in
    the timed window moves in whole waves of them. The window runs from the first logged end plus the longest
    request to the last logged end less it (each at most a quarter of the span), so that every request that
    overlaps it ended inside the timed window and was logged; a request that straddles an edge counts by the
    share of its time inside. None when the log has too little to hold such a window."""
    requests = []  # (start µs, end µs, answered 2xx/3xx)
    with log.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) >= 3 and parts[0].strip().isdigit() and parts[2].strip().isdigit():
                start, status = int(parts[0]), parts[1].strip()
                requests.append((start, start + int(parts[2]), status.isdigit() and 200 <= int(status) < 400))
    if len(requests) < 2:
        return None
    first, last = min(e for _, e, _ in requests), max(e for _, e, _ in requests)
    margin = min(max(e - s for s, e, _ in requests), (last - first) // 4)
    a, b = first + margin, last - margin
    if b <= a:
        return None
    good = other = 0.0
    for s, e, ok in requests:
        inside = min(e, b) - max(s, a)
        share = inside / (e - s) if e > s else float(a <= s <= b)
        if inside < 0 or share <= 0:
            continue
        if ok:
            good += share
        else:
            other += share
    return f"{WINDOW_LINE} {round(good)} good, {round(other)} other answers in {(b - a) / 1e6:.6f} s"


def cmd_h2load_latency(args) -> int:
    path = Path(args.file)
    if not path.exists():
        print(f"{H2LOAD_LATENCY_LINE} (0 requests): no log file")
        return 0
    print(h2load_latency_line(path))
    if args.window:
        line = h2load_window_line(path)
        if line:
            print(line)
    return 0


def cmd_parse(args) -> int:
    r = parse_result(Path(args.file).read_text(encoding="utf-8", errors="replace"))
    if r.rps is None:
        print("unparsable wrk or h2load output", file=sys.stderr)
        return 1

    def f(x):
        return "-" if x is None else f"{x:.3f}"

    print("\t".join([f"{r.good_rps:,.0f}", f(r.latency_avg_ms), f(r.latency_p99_ms), str(r.socket_errors),
                     str(r.non2xx), str(r.requests if r.requests is not None else "-")]))
    return 0



@dataclass
class OpenResult:
    """One open-model run of scripts/lib/open-load.sh (Hyperfoil at a constant rate): its summary.tsv row, with
    latencies counted from when each request was started on the schedule, and its percentiles.tsv distribution."""
    offered_rate: float
    achieved_rate: float
    requests: int
    errors: int
    non2xx: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    blocked_ms: float
    unsent: int
    session_limit_exceeded: bool
    connections: int
    # (percentile 0..100, latency ms), ascending; the last is the max at 100
    percentiles: list = field(default_factory=list)
    responses: int | None = None  # responses received (summary.tsv "responses"; older files lack it)

    @property
    def completed(self) -> int:
        """Requests answered: the responses when recorded, else requests less errors."""
        return self.responses if self.responses is not None else self.requests - self.errors

    @property
    def behind(self) -> bool:
        """The generator fell behind its schedule (open-load.sh's exit 3): the latency understates the rate."""
        return self.session_limit_exceeded or self.unsent > max(2, (self.requests + self.unsent) // 100)

    def as_wrk(self, seconds: float) -> "WrkResult":
        """The figures a matrix cell keeps of any round (req/s achieved, p99, errors, non-2xx); the rest stays
        here. Hyperfoil's errors (connection errors, timeouts) count as socket errors."""
        return WrkResult(rps=self.achieved_rate, latency_p99_ms=self.p99_ms,
                         percentiles={50.0: self.p50_ms, 90.0: self.p90_ms, 99.0: self.p99_ms, 99.9: self.p999_ms},
                         requests=self.requests, seconds=seconds, connect=self.errors, non2xx=self.non2xx)


def parse_open_result(run_dir: Path) -> OpenResult:
    """Reads DIR/summary.tsv (and DIR/percentiles.tsv when present) as open-load.sh wrote them; raises
    ValueError naming the file when it is missing or not of that shape."""
    rows = read_tsv(run_dir / "summary.tsv")
    if len(rows) != 1:
        raise ValueError(f"{run_dir / 'summary.tsv'}: expected a header and one row, found {len(rows)} rows")
    row = rows[0]
    try:
        r = OpenResult(
            offered_rate=float(row["offered_rate"]), achieved_rate=float(row["achieved_rate"]),
            requests=int(row["requests"]), errors=int(row["errors"]), non2xx=int(row["non2xx"]),
            p50_ms=float(row["p50_ms"]), p90_ms=float(row["p90_ms"]), p99_ms=float(row["p99_ms"]),
            p999_ms=float(row["p999_ms"]), max_ms=float(row["max_ms"]), blocked_ms=float(row["blocked_ms"]),
            unsent=int(row["unsent"]), session_limit_exceeded=row["session_limit_exceeded"] == "1",
            connections=int(row["connections"]),
            responses=int(row["responses"]) if (row.get("responses") or "").isdigit() else None)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{run_dir / 'summary.tsv'}: not an open-load.sh summary ({type(e).__name__}: {e})") from None
    for p in read_tsv(run_dir / "percentiles.tsv"):
        r.percentiles.append((float(p["percentile"]), float(p["latency_ms"])))
    return r


def fmt_int(x: float | None) -> str:
    return "" if x is None else f"{x:,.0f}"


def fmt_ms(x: float | None) -> str:
    if x is None:
        return ""
    if math.isinf(x):
        return "∞"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_compact(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k"
    if x >= 1e3:
        return f"{x / 1e3:.2f}k"
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"



def read_tsv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


# How ConformanceCheck marks a case it had no time left for (NetworkConformanceSuite's deadline).
UNRUN_PREFIX = "not run: the check's time budget"


@dataclass
class Conformance:
    """A row's black-box conformance check (conformance/<row>.tsv): every case and how it went."""
    cases: list  # {"case", "status", "message"} in the order they ran

    def of(self, status: str) -> list[dict]:
        return [c for c in self.cases if c["status"] == status]

    @property
    def passed(self) -> int:
        return len(self.of("passed"))

    @property
    def total(self) -> int:
        """Cases that ran to a verdict: skipped ones are not counted."""
        return self.passed + len(self.of("failed"))

    @property
    def score(self) -> str:
        return f"{self.passed}/{self.total}"

    def of_rule(self, rule: str, status: str) -> list[dict]:
        """Cases of one rule (`rfc9112` or `contract`; a file without the column: every case rfc9112)."""
        return [c for c in self.of(status) if (c.get("rule") or "rfc9112") == rule]

    def rule_counts(self, rule: str) -> tuple[int, int]:
        """(passed, run) of one rule's cases; skips counted in neither."""
        passed = len(self.of_rule(rule, "passed"))
        return passed, passed + len(self.of_rule(rule, "failed"))

    def rule_score(self, rule: str) -> str:
        passed, run = self.rule_counts(rule)
        return f"{passed}/{run}"

    def skipped_text(self) -> str:
        """How many were skipped, and how many of those the check's time budget left unrun."""
        skipped = self.of("skipped")
        unrun = sum(1 for c in skipped if c["message"].startswith(UNRUN_PREFIX))
        return f"{len(skipped)} skipped" + (f" ({unrun} not run: the check's time budget ran out)" if unrun else "")


def read_conformance(run: Path) -> dict[str, Conformance]:
    """Row name -> its check, from RUN_DIR/conformance/<row>.tsv."""
    out = {}
    for path in sorted((run / "conformance").glob("*.tsv")):
        cases = [c for c in read_tsv(path) if c.get("case")]
        for c in cases:
            extra = c.pop(None, None)  # a 4th field under a 3-column header: the rule all the same
            if not c.get("rule") and extra:
                c["rule"] = extra[0]
        out[path.stem] = Conformance(cases)
    return out


def read_warmups(run: Path) -> dict[tuple[str, str], list[tuple[float, float, str]]]:
    """(server, start K) -> its warm-up windows as (t_s, req/s, scenario), from raw/<server>/warmup-start<K>.tsv."""
    out = {}
    for path in sorted((run / "raw").glob("*/warmup-start*.tsv")):
        points = []
        for row in read_tsv(path):
            try:
                points.append((float(row["t_s"]), float(row["req_per_s"]), row.get("scenario") or ""))
            except (KeyError, TypeError, ValueError):
                continue
        out[(path.parent.name, path.stem.removeprefix("warmup-start"))] = points
    return out


def relative_warmup(points: list[tuple[float, float, str]], k: int) -> list[tuple[float, float]]:
    """A start's warm-up windows as (t_s, % of its scenario's level): each scenario's windows over the mean of its
    last k (the level the steady rule compared them with), so scenarios a hundredfold apart share one axis; a
    (t, nan) point between scenarios breaks the line. A scenario whose level is 0 (it answered nothing) is left
    out."""
    out: list[tuple[float, float]] = []
    i = 0
    while i < len(points):
        j = i
        while j < len(points) and points[j][2] == points[i][2]:
            j += 1
        last = [rps for _, rps, _ in points[max(i, j - k):j]]
        level = sum(last) / len(last)
        if level > 0:
            if out:
                out.append((points[i][0], math.nan))
            out += [(t, 100 * rps / level) for t, rps, _ in points[i:j]]
        i = j
    return out


def read_meta(run: Path) -> dict:
    meta = {}
    for line in (run / "meta.tsv").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("\t")
        meta[key] = value
    return meta


def median_text(n: int) -> str:
    """How a figure of n rounds was reduced, as the tables and charts say it."""
    if n == 1:
        return "single round"
    if n % 2:
        return f"median of {n} rounds"
    return f"median of {n} rounds (even: mean of the middle two)"


def median_of(values: list) -> float | None:
    """The true median (for an even count, the mean of the middle two); None without values."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def range_of(values: list) -> tuple[float, float] | None:
    values = [v for v in values if v is not None]
    return (min(values), max(values)) if values else None


def fmt_range(r: tuple[float, float] | None, fmt) -> str:
    return f"{fmt(r[0])}–{fmt(r[1])}" if r else ""


def ms_cpu_per_request(cpu_s: float | None, requests: int | None) -> float | None:
    """Server CPU milliseconds per request: CPU-seconds over requests (never over req/s); the report passes the
    good ones (answered 2xx/3xx)."""
    return 1000.0 * cpu_s / requests if cpu_s and requests else None


def failed_round_text(result: "WrkResult") -> str:
    """Why a round that ran counts as failed: it completed no request (timeouts or socket errors only)."""
    parts = [f"{k} {getattr(result, k)}" for k in ("connect", "read", "write", "timeout", "failed") if getattr(result, k)]
    errors = f", {result.socket_errors:,} socket errors ({', '.join(parts)})" if parts else ", no socket errors"
    return f"0 requests completed{errors}"


@dataclass
class Cell:
    """One server x scenario: its measured rounds and what went wrong. Every figure is the median of the rounds
    that completed requests, each column on its own (min–max beside it); a round that completed none is a failed
    round, kept apart in `failed_rounds`."""
    server: str
    scenario: str
    rounds: list = field(default_factory=list)  # (round, WrkResult, cpu_seconds or None)
    problems: list = field(default_factory=list)  # measurement problems ("round 2: wrk exit 1")
    open: dict = field(default_factory=dict)  # round -> OpenResult, for an open-model scenario
    failed_rounds: list = field(default_factory=list)  # (round, WrkResult) of rounds that completed no request
    starts: dict = field(default_factory=dict)  # round -> the server start (K) it ran in, when recorded
    cpu_ticks: dict = field(default_factory=dict)  # round -> its server CPU in clock ticks, where read in ticks
    cpu_ns: set = field(default_factory=set)  # rounds whose server CPU was read in nanoseconds (cpu_ns)

    def values(self, attr: str) -> list:
        return [getattr(e[1], attr) for e in self.rounds]

    @property
    def rps(self):
        """Goodput: the median of the rounds' 2xx/3xx answers per second."""
        return median_of(self.values("good_rps"))

    @property
    def latency_avg_ms(self):
        return median_of(self.values("latency_avg_ms"))

    @property
    def latency_p99_ms(self):
        return median_of(self.values("latency_p99_ms"))

    @property
    def latency_p99_range(self):
        return range_of(self.values("latency_p99_ms"))

    @property
    def open_median(self) -> "OpenResult | None":
        """Per figure (and per percentile), the median across the rounds; None for a closed-loop cell."""
        return median_open(list(self.open.values())) if self.open else None

    @property
    def cpu_s(self):
        return median_of([e[2] for e in self.rounds])

    def per_cpu_values(self) -> list[float]:
        """Per round, good requests (2xx/3xx) / server CPU-seconds: 0 for a round that answered only errors."""
        return [e[1].good_requests / e[2] for e in self.rounds if e[2] and e[1].requests and e[1].good_requests is not None]

    @property
    def req_per_cpu_s(self):
        """Median of the rounds' good requests (2xx/3xx) / server CPU-seconds."""
        return median_of(self.per_cpu_values())

    def cpu_ms_values(self) -> list[float]:
        """Per round, server CPU milliseconds / good requests (None where either is missing; infinite for a round
        that spent CPU answering only errors)."""
        return [math.inf if e[2] and e[1].requests and e[1].good_requests == 0
                else ms_cpu_per_request(e[2], e[1].good_requests) for e in self.rounds]

    @property
    def ms_cpu_per_request(self):
        """Median of the rounds' server CPU milliseconds / good requests (2xx/3xx)."""
        return median_of(self.cpu_ms_values())

    @property
    def cpu_noisy(self) -> bool:
        """Whether the rounds' CPU per request spread more than NOISY_SPREAD of its median (as req/s's ≈)."""
        values = [v for v in self.cpu_ms_values() if v is not None]
        mid = median_of(values)
        if len(values) < 2 or not mid:
            return False
        return math.isinf(max(values)) or (max(values) - min(values)) > NOISY_SPREAD * mid

    @property
    def cpu_coarse(self) -> bool:
        """Whether a round's server CPU was read in fewer than COARSE_TICKS clock ticks (one tick then moves CPU
        per request by over 1%); never for rounds measured in nanoseconds (measurements.tsv cpu_ns)."""
        ticks = [self.cpu_ticks[rnd] for rnd, _, cpu in self.rounds if cpu is not None and rnd in self.cpu_ticks]
        return bool(ticks) and min(ticks) < COARSE_TICKS

    @property
    def round1_lowest(self) -> bool:
        """Whether round 1 is the lowest of two or more rounds in req/s (goodput), strictly: a rising trend."""
        by_round = {rnd: r.good_rps for rnd, r, _ in self.rounds if r.good_rps is not None}
        if 1 not in by_round or len(by_round) < 2 or self.open:
            return False
        return by_round[1] < min(v for rnd, v in by_round.items() if rnd != 1)

    def total(self, attr: str) -> int:
        return sum(getattr(e[1], attr) for e in self.rounds) + sum(getattr(r, attr) for _, r in self.failed_rounds)

    @property
    def rps_range(self) -> tuple[float, float] | None:
        """The lowest and highest round's req/s (goodput)."""
        return range_of(self.values("good_rps"))

    @property
    def per_cpu_range(self) -> tuple[float, float] | None:
        """The lowest and highest round's requests per server CPU-second."""
        return range_of(self.per_cpu_values())

    @property
    def noisy(self) -> bool:
        """Whether the rounds' req/s spread more than NOISY_SPREAD of the median: its rank is not to be trusted."""
        r = self.rps_range
        return len(self.rounds) > 1 and bool(self.rps) and (r[1] - r[0]) > NOISY_SPREAD * self.rps

    def failure_text(self) -> str | None:
        """For a cell whose every measured round completed no request: "failed: 0 requests in 2 rounds, ..."."""
        if self.rounds or not self.failed_rounds:
            return None
        n = len(self.failed_rounds)
        errors = sum(r.socket_errors for _, r in self.failed_rounds)
        timeouts = sum(r.timeout for _, r in self.failed_rounds)
        return (f"failed: 0 requests in {n} round{'s' if n > 1 else ''}, {timeouts:,} timeouts"
                + (f", {errors - timeouts:,} other socket errors" if errors - timeouts else ""))


def median_open(results: list["OpenResult"]) -> "OpenResult | None":
    """An OpenResult whose every figure is the median across the rounds, percentile by percentile (the
    distribution's points where every round has that percentile)."""
    if not results:
        return None
    def med(attr):
        return median_of([getattr(r, attr) for r in results])
    shared = set.intersection(*(set(p for p, _ in r.percentiles) for r in results)) if results else set()
    curves = [dict(r.percentiles) for r in results]
    percentiles = [(p, median_of([c[p] for c in curves])) for p in sorted(shared)]
    return OpenResult(
        offered_rate=med("offered_rate"), achieved_rate=med("achieved_rate"), requests=int(med("requests")),
        errors=sum(r.errors for r in results), non2xx=sum(r.non2xx for r in results),
        p50_ms=med("p50_ms"), p90_ms=med("p90_ms"), p99_ms=med("p99_ms"), p999_ms=med("p999_ms"),
        max_ms=med("max_ms"), blocked_ms=med("blocked_ms"), unsent=sum(r.unsent for r in results),
        session_limit_exceeded=any(r.session_limit_exceeded for r in results),
        connections=int(med("connections")), percentiles=percentiles)


class Report:
    def __init__(self, run: Path, out: Path | None = None):
        self.run = run
        self.out = out or run  # where summary.md, summary.csv and charts/ are written
        self.meta = read_meta(run)
        self.servers = read_tsv(run / "servers.tsv")
        self.scenarios = read_tsv(run / "scenarios.tsv")
        self.events = read_tsv(run / "events.tsv")
        self.clk_tck = int(self.meta.get("clk_tck", "100"))
        self.rounds_planned = int(self.meta.get("rounds", "1"))
        self.cells: dict[tuple[str, str], Cell] = {}
        for s in self.servers:
            for sc in self.scenarios:
                self.cells[(s["name"], sc["name"])] = Cell(s["name"], sc["name"])
        self.open_names = {sc["name"] for sc in self.scenarios if sc.get("open")}
        # HTTP/2 scenarios (scenarios.tsv "streams": h2load's streams per connection)
        self.h2_names = {sc["name"] for sc in self.scenarios if sc.get("streams")}
        # each scenario's path: a route-unavailable event (scope "route:<path>") applies to the scenarios on it
        self.paths = {sc["name"]: sc.get("path", "") for sc in self.scenarios}
        self.scenario_by_name = {sc["name"]: sc for sc in self.scenarios}
        for m in read_tsv(run / "measurements.tsv"):
            cell = self.cells.get((m["server"], m["scenario"]))
            if cell is None:
                continue
            raw = run / m["raw"]
            if m["scenario"] in self.open_names:
                self.add_open_round(cell, m, raw)
                continue
            text = raw.read_text(encoding="utf-8", errors="replace") if raw.exists() else ""
            result = parse_result(text)
            if m["wrk_rc"] != "0" or result.rps is None:
                first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "no output")
                tool = "h2load" if m["scenario"] in self.h2_names else "wrk"
                if tool == "h2load" and m["wrk_rc"] in ("124", "137"):
                    cell.problems.append(f"round {m['round']}: h2load did not end within its time limit (killed, exit "
                                         f"{m['wrk_rc']}); its output: {m['raw']}")
                else:
                    cell.problems.append(f"round {m['round']}: {tool} exit {m['wrk_rc']} ({first[:100]})")
                continue
            if m.get("start"):
                cell.starts[int(m["round"])] = m["start"]
            if not result.requests and not result.rps:
                cell.failed_rounds.append((int(m["round"]), result))
                cell.problems.append(f"round {m['round']}: {failed_round_text(result)}")
                continue
            cell.rounds.append((int(m["round"]), result, self.round_cpu(cell, m)))
        # starts.tsv (a run with adaptive warm-ups): (server, start K) -> its row
        self.starts = {(r["server"], r["start"]): r for r in read_tsv(run / "starts.tsv") if r.get("server")}
        self.warmups = read_warmups(run)
        self.reference = {s["name"] for s in self.servers if s.get("reference") == "1"}
        self.twin_rows = {s["name"] for s in self.servers if s.get("baseline_of")}
        # Scenarios over HTTPS, measured in a second start of each server (scenarios.tsv "tls").
        self.tls_names = {sc["name"] for sc in self.scenarios if sc.get("tls") == "1"}
        self.tls = read_tsv(run / "tls.tsv")  # what each TLS start negotiated (openssl s_client)
        self.conformance = read_conformance(run)

    def round_cpu(self, cell: Cell, m: dict) -> float | None:
        """A round's server CPU-seconds from measurements.tsv: cpu_ns (nanoseconds) when the column is there and
        filled, else cpu_ticks ÷ clk_tck; None when neither was sampled. Records which, for the coarse mark."""
        rnd = int(m["round"])
        ns = (m.get("cpu_ns") or "").strip()
        if ns not in ("", "-"):
            cell.cpu_ns.add(rnd)
            return float(ns) / 1e9
        ticks = (m.get("cpu_ticks") or "").strip()
        if ticks in ("", "-"):
            return None
        cell.cpu_ticks[rnd] = int(ticks)
        return int(ticks) / self.clk_tck

    def add_open_round(self, cell: Cell, m: dict, raw: Path) -> None:
        """One round of an open-model scenario: open-load.sh's directory (exit 0, or 3 when the generator fell
        behind its schedule: measured, and flagged in the tables)."""
        if m["wrk_rc"] not in ("0", "3"):
            cell.problems.append(f"round {m['round']}: open-load.sh exit {m['wrk_rc']} (see {m['raw']}/hyperfoil.log)")
            return
        try:
            result = parse_open_result(raw)
        except ValueError as e:
            cell.problems.append(f"round {m['round']}: {e}")
            return
        if m.get("start"):
            cell.starts[int(m["round"])] = m["start"]
        as_wrk = result.as_wrk(float(self.meta.get("duration", "0") or 0))
        if result.completed <= 0:
            # nothing but errors (connection errors, timeouts): a failed round, not a latency
            cell.failed_rounds.append((int(m["round"]), as_wrk))
            cell.problems.append(f"round {m['round']}: 0 requests completed, {result.errors:,} errors (Hyperfoil)")
            as_wrk.requests = 0
            return
        cell.rounds.append((int(m["round"]), as_wrk, self.round_cpu(cell, m)))
        cell.open[int(m["round"])] = result

    # Events: a failure of the whole row (scope "") or of its TLS start only (scope "tls");
    # older runs have no scope column.
    # "h2": the h2 scenarios of the plain start (h2c), "tls-h2": those of the TLS start (h2 by ALPN).
    # "route:<path>": the scenarios on a route the row does not serve (a 404 to its route check).
    def applies(self, e: dict, scenario: str) -> bool:
        scope = e.get("scope") or ""
        if scope.startswith("route:"):
            return self.paths.get(scenario) == scope[len("route:"):]
        tls, h2 = scenario in self.tls_names, scenario in self.h2_names
        return (scope == "" or (scope == "tls" and tls) or (scope == "h2" and h2 and not tls)
                or (scope == "tls-h2" and h2 and tls))

    def excused(self, e: dict) -> bool:
        """No TLS, no HTTP/2, or no route a row may lack (POST /multipart, GET /users-list), where it may be missing: a reference
        row (its protocols and routes are its own module's matter) and --baseline twins (their commit may predate
        them). Reported, not a failure of the run."""
        return (e["kind"] in ("tls-unavailable", "h2-unavailable", "route-unavailable")
                and (e["server"] in self.reference or e["server"] in self.twin_rows))

    @staticmethod
    def event_text(e: dict) -> str:
        where = f"round {e['round']}: " if e["round"] not in ("", "-") else ""
        scope = "TLS start, " if e.get("scope") in ("tls", "tls-h2") else ""
        return f"{e['kind']}: {scope}{where}{e['message']}"

    # Servers with a failure event (not-built, build, start, check, crash, no TLS); warnings and
    # excused ones excluded.
    def failures(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for e in self.events:
            if e["kind"] == "warning" or self.excused(e):
                continue
            out.setdefault(e["server"], []).append(self.event_text(e))
        return out

    def cell_events(self, cell: Cell) -> list[dict]:
        """The failure events behind this cell (excused ones included)."""
        return [e for e in self.events if e["server"] == cell.server and e["kind"] != "warning"
                and self.applies(e, cell.scenario)]

    SHORT = {"not-built": "not built", "build-failed": "build failed", "start-failed": "did not start",
             "check-failed": "wrong answers", "crashed": "crashed", "tls-unavailable": "no TLS",
             "h2-unavailable": "n/a: no h2", "route-unavailable": "n/a: no route"}

    def short_failure(self, cell: Cell) -> str | None:
        """A few words for a chart: the first failure behind this cell."""
        for e in self.cell_events(cell):
            where = f" in round {e['round']}" if e["round"] not in ("", "-") else ""
            return self.SHORT.get(e["kind"], e["kind"]) + where
        return None

    def failed_label(self, cell: Cell) -> str:
        """What a cell without figures shows: "no TLS" when the server does not speak it."""
        kinds = {e["kind"] for e in self.cell_events(cell)}
        if kinds == {"tls-unavailable"}:
            return "no TLS"
        if kinds == {"h2-unavailable"}:
            return "n/a: no h2"
        if kinds == {"route-unavailable"}:
            return "n/a: no route"
        return cell.failure_text() or "failed"

    # -- steady state (starts.tsv) --

    def not_steady(self, cell: Cell) -> bool:
        """Whether a round of this cell ran in a start whose warm-up did not reach steady state (starts.tsv
        steady=0). Runs without starts.tsv have no mark; without the measurements' start column, start 1."""
        if not self.starts:
            return False
        starts = {cell.starts.get(rnd, "1") for rnd, _, _ in cell.rounds} or set(cell.starts.values())
        return any(self.starts.get((cell.server, k), {}).get("steady") == "0" for k in starts)

    def steady_mark(self, cell: Cell) -> str:
        return " †" if self.not_steady(cell) else ""

    def steady_note(self, cells: list[Cell]) -> list[str]:
        """Under a table with a † cell: what the mark means and which rows carry it."""
        rows = sorted({c.server for c in cells if self.not_steady(c)})
        if not rows:
            return []
        return [f"† = not steady: that start's warm-up ended before its throughput settled and the JIT stopped "
                f"compiling (starts.tsv; see \"Warm-up\" in summary.md): {', '.join(rows)}.", ""]

    def warmup_lines(self, h: str, prefix: str = "") -> list[str]:
        """Per row and start: warm-up seconds, steady or not, and why (starts.tsv)."""
        if not self.starts:
            return [f"{h}# Warm-up", "", f"A fixed warm-up of {self.meta.get('warmup', '?')}s per start; this run "
                    "recorded no steady-state check (no starts.tsv), so its figures may be of JVMs still warming.", ""]
        rows = list(self.starts.values())
        unsteady = [r for r in rows if r.get("steady") != "1"]
        mode = self.meta.get("warmup_mode") or rows[0].get("mode", "?")
        cap = self.meta.get("warmup_cap")
        lines = [f"{h}# Warm-up", "",
                 f"Warm-up {mode}" + (f", capped at {cap}s" if cap else "") + "; "
                 + (f"{len(unsteady)} of {len(rows)} starts not steady (marked † in every table)."
                    if unsteady else f"every one of the {len(rows)} starts reached steady state."), "",
                 *([f"![warm-up: req/s per window of every start]({prefix}charts/warmup.svg)", ""] if self.warmups else []),
                 "| server | start | mode | warm-up s | steady | reason |", "|---|---:|---|---:|---|---|"]
        for r in rows:
            lines.append(f"| {r['server']} | {r['start']} | {r.get('mode', '')} | {r.get('warmup_s', '')} "
                         f"| {'yes' if r.get('steady') == '1' else '**no** †'} | {md_escape(r.get('reason', ''))} |")
        return lines + [""]

    def warnings(self) -> list[str]:
        return [f"{e['server']} round {e['round']}: {e['message']}" for e in self.events if e["kind"] == "warning"]

    def best_reference_row(self, scenario: str) -> str | None:
        """The reference row (NettyServer, the references/ modules) with the most req/s here."""
        rows = [(self.cells[(s, scenario)].rps, s) for s in sorted(self.reference)]
        rows = [r for r in rows if r[0]]
        return max(rows)[1] if rows else None

    def best_reference(self, scenario: str) -> float | None:
        row = self.best_reference_row(scenario)
        return self.cells[(row, scenario)].rps if row else None

    def ratio(self, cell: Cell) -> float | None:
        if cell.scenario in self.open_names:
            return None   # an offered rate, not a throughput: nothing to divide
        best = self.best_reference(cell.scenario)
        return cell.rps / best if best and cell.rps is not None else None

    def ranked(self, scenario: str) -> list[Cell]:
        cells = [self.cells[(s["name"], scenario)] for s in self.servers]
        if scenario in self.open_names:   # by p99 latency, lowest first
            return sorted(cells, key=lambda c: (c.rps is None, c.latency_p99_ms or 0))
        return sorted(cells, key=lambda c: (c.rps is None, -(c.rps or 0)))

    def status(self, cell: Cell) -> str:
        if not cell.rounds:
            label = self.failed_label(cell)
            return {"no TLS": "no-tls", "n/a: no h2": "no-h2", "n/a: no route": "no-route"}.get(label, "failed")
        if len(cell.rounds) < self.rounds_planned or self.cell_events(cell):
            return "partial"
        return "ok"

    def note(self, cell: Cell) -> str:
        return "; ".join([self.event_text(e) for e in self.cell_events(cell)] + cell.problems)

    # -- waiting scenarios: the window's share of the bound against Little's law --

    def little_rps(self, cell: Cell) -> float | None:
        """Little's-law goodput of a waiting cell: per round, the requests in flight (connections, or streams for
        h2) ÷ the mean latency, times the share answered 2xx/3xx; the median of the rounds. None without a bound
        or a mean latency."""
        sc = self.scenario_by_name.get(cell.scenario)
        if sc is None or upper_bound(sc) is None or cell.open:
            return None
        n = in_flight(sc)
        return median_of([n * 1000 / r.latency_avg_ms * r.good_requests / r.requests
                          for _, r, _ in cell.rounds if r.latency_avg_ms and r.requests])

    def bound_resolution(self, cell: Cell) -> float | None:
        """The resolution of a waiting cell's "% of bound", as a share of the cell's good requests (the median of
        the rounds). Counted over the whole run: one wait's worth of requests (those in flight), the step in which
        the count moves when the requests in flight end their waits together. Counted in a fixed window with the
        starts spread over one wait (bench-window.lua): the requests that started in one millisecond of the spread
        (wrk's timer step), which may end together at the window's edge."""
        sc = self.scenario_by_name.get(cell.scenario)
        if sc is None or upper_bound(sc) is None or cell.open:
            return None
        windowed = [r for _, r, _ in cell.rounds if r.window_seconds]
        if windowed:
            good = median_of([r.window_good for r in windowed])
            # h2load's window counts shares of requests: its step is one request
            step = 1.0 if (sc.get("streams") or "").isdigit() else max(1.0, in_flight(sc) / int(sc["wait_ms"]))
            return step / good if good else None
        good = median_of([r.good_requests for _, r, _ in cell.rounds])
        return in_flight(sc) / good if good else None

    def bound_disagrees(self, cell: Cell) -> bool:
        """Whether the window's req/s and Little's-law goodput differ by more than the resolution or AGREE_WITHIN
        (of the window's), whichever is larger."""
        window, little, resolution = cell.rps, self.little_rps(cell), self.bound_resolution(cell)
        if not window or little is None or resolution is None:
            return False
        return abs(window - little) > max(resolution, AGREE_WITHIN) * window

    # -- the per-round trend --

    def trend_cells(self) -> list[Cell]:
        """The closed-loop cells with two or more measured rounds, round 1 among them: where a trend can show."""
        return [c for c in self.cells.values() if c.scenario not in self.open_names
                and len(c.rounds) > 1 and any(rnd == 1 for rnd, _, _ in c.rounds)]

    def trend_lines(self, h: str) -> list[str]:
        """How often round 1 was a cell's lowest, overall and per row."""
        cells = self.trend_cells()
        lines = [f"{h}# Per-round trend", ""]
        if not cells:
            return lines + ["No cell has two or more rounds with round 1 among them: no per-round trend to show.", ""]
        lowest = [c for c in cells if c.round1_lowest]
        rounds = median_of([len(c.rounds) for c in cells])
        per_row = []
        for s in self.servers:
            mine = [c for c in cells if c.server == s["name"]]
            if mine:
                per_row.append(f"{s['name']} {sum(c.round1_lowest for c in mine)} of {len(mine)}")
        lines += [f"Round 1 lowest in {len(lowest)} of {len(cells)} cells (req/s; cells with two or more rounds, "
                  f"round 1 among them): marked {ROUND1_MARK} in the tables. With {rounds:g} rounds, chance alone "
                  f"makes round 1 the lowest in about 1 in {rounds:g} cells; a row well above that was likely still "
                  "warming when it was measured. Per row: " + ", ".join(per_row) + ".", ""]
        return lines

    # -- the correctness column --

    RULES = (("rfc9112", "RFC 9112"), ("contract", "contract"))

    def correct(self, server: str, rule: str | None = None) -> str:
        """passed/run of the row's conformance cases (of one rule when given), – when it has none."""
        check = self.conformance.get(server)
        if check is None:
            return "–"
        return check.rule_score(rule) if rule else check.score

    def correct_header(self) -> tuple[str, str]:
        """The correctness columns' header and alignment cells (RFC 9112 validity, Spindle's stricter contract),
        empty when no row was checked."""
        if not self.conformance:
            return ("", "")
        return ("".join(f" {title} |" for _, title in self.RULES), "---:|" * len(self.RULES))

    def correct_cell(self, server: str) -> str:
        return "".join(f" {self.correct(server, rule)} |" for rule, _ in self.RULES) if self.conformance else ""

    def conformance_lines(self, h: str) -> list[str]:
        """Under the tables: each row's failed cases with their messages, grouped by rule; skips counted."""
        if not self.conformance:
            return []
        lines = [f"{h}# Conformance failures", "",
                 "Each row's server was checked black-box over the network by the shared "
                 "conformance suite (`scripts/conformance-check.sh`: its cases on the benchmark app's routes, every "
                 "server held to the same cases, no deviations declared). Two columns in the tables, cases passed / "
                 "cases run: `RFC 9112` counts the cases whose behaviour RFC 9110/9112 require (a row failing one is "
                 "wrong), `contract` the cases of Spindle's own stricter contract (design.md limits, timeouts, status "
                 "choices the RFC leaves open: a reference failing one answers differently, not wrongly). Skipped "
                 "cases (those needing a router, timeouts or a connection limit of their own, or a server of their "
                 "own) count in neither. Check files without a rule column count every case as RFC 9112.", ""]
        clean = []
        for rule, title in self.RULES:
            failing = [(s["name"], check) for s in self.servers
                       if (check := self.conformance.get(s["name"])) is not None and check.of_rule(rule, "failed")]
            if not failing:
                continue
            lines += [f"{h}## {title} failures", ""]
            for name, check in failing:
                failed = check.of_rule(rule, "failed")
                lines.append(f"- **{name}** — {check.rule_score(rule)} {title}, {len(failed)} failed, "
                             f"{check.skipped_text()}:")
                lines += [f"  - `{md_escape(c['case'])}`: {md_escape(c['message'] or 'no message')}" for c in failed]
            lines.append("")
        for s in self.servers:
            check = self.conformance.get(s["name"])
            if check is not None and not check.of("failed"):
                clean.append(f"{s['name']} ({check.score}, {check.skipped_text()})")
        unchecked = [s["name"] for s in self.servers if s["name"] not in self.conformance]
        if clean:
            lines += ["Every case run passed: " + ", ".join(clean) + ".", ""]
        if unchecked:
            lines += ["Not checked (no conformance/<row>.tsv): " + ", ".join(unchecked) + ".", ""]
        return lines

    # -- violations (exit status) --

    def violations(self, strict: bool) -> list[str]:
        out = [f"{server}: {msg}" for server, msgs in self.failures().items() for msg in msgs]
        blocking = {sc["name"] for sc in self.scenarios if sc["blocking"] == "1"}
        for cell in self.cells.values():
            out += [f"{cell.server} {cell.scenario}: {p}" for p in cell.problems]
            if strict and cell.scenario not in blocking and cell.rounds:
                errors, non2xx = cell.total("socket_errors"), cell.total("non2xx")
                if errors or non2xx:
                    out.append(f"{cell.server} {cell.scenario}: {errors} socket errors, {non2xx} non-2xx responses")
            sc = self.scenario_by_name.get(cell.scenario, {})
            if strict and windowed_scenario(sc) and any(not r.window_seconds for _, r, _ in cell.rounds):
                # its req/s would silently fall back to the generator's whole-run count, in whole waves
                out.append(f"{cell.server} {cell.scenario}: a round has no fixed window (bench-window.lua or "
                           "h2load's log printed no 'window:' line)")
        return out

    # -- summary.csv --

    def write_csv(self) -> None:
        cols = ["server", "scenario", "status", "rounds", "req_per_s", "req_per_s_min", "req_per_s_max",
                "latency_avg_ms", "latency_p99_ms", "socket_errors", "errors_connect", "errors_read",
                "errors_write", "errors_timeout", "non_2xx", "server_cpu_s", "req_per_server_cpu_s",
                "ratio_to_best_reference", "best_reference", "note", "upper_bound_req_per_s", "noisy",
                "offered_req_per_s", "latency_p50_ms", "latency_p90_ms", "latency_p999_ms", "latency_max_ms",
                "generator_behind", "conformance_passed", "conformance_total", "rounds_failed",
                "ms_server_cpu_per_request", "latency_p99_ms_min", "latency_p99_ms_max", "req_per_server_cpu_s_min",
                "req_per_server_cpu_s_max", "not_steady", "rfc9112_passed", "rfc9112_total", "contract_passed",
                "contract_total", "p99_statistic", "cpu_noisy", "cpu_coarse", "cpu_source", "round1_lowest",
                "little_req_per_s", "bound_resolution", "bound_disagrees"]
        with (self.out / "summary.csv").open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for sc in self.scenarios:
                for s in self.servers:
                    c = self.cells[(s["name"], sc["name"])]
                    rps_range = c.rps_range
                    ratio = self.ratio(c)
                    check = self.conformance.get(c.server)
                    p99_range, cpu_range = c.latency_p99_range, c.per_cpu_range

                    def num(x, digits):
                        return "" if x is None else f"{x:.{digits}f}"

                    w.writerow([
                        c.server, c.scenario, self.status(c), len(c.rounds),
                        num(c.rps, 2), num(rps_range[0] if rps_range else None, 2),
                        num(rps_range[1] if rps_range else None, 2),
                        num(c.latency_avg_ms, 3), num(c.latency_p99_ms, 3),
                        c.total("socket_errors"), c.total("connect"), c.total("read"), c.total("write"),
                        c.total("timeout"), c.total("non2xx"), num(c.cpu_s, 2), num(c.req_per_cpu_s, 0),
                        num(ratio, 3), self.best_reference_row(c.scenario) or "", self.note(c),
                        num(upper_bound(sc), 0), int(c.noisy),
                        *self.open_csv(c, num),
                        *((check.passed, check.total) if check else ("", "")),
                        len(c.failed_rounds), num(c.ms_cpu_per_request, 4),
                        num(p99_range[0] if p99_range else None, 3), num(p99_range[1] if p99_range else None, 3),
                        num(cpu_range[0] if cpu_range else None, 0), num(cpu_range[1] if cpu_range else None, 0),
                        int(self.not_steady(c)),
                        *(check.rule_counts("rfc9112") if check else ("", "")),
                        *(check.rule_counts("contract") if check else ("", "")),
                        median_text(len(c.rounds)) if c.rounds else "",
                        int(c.cpu_noisy), int(c.cpu_coarse), self.cpu_source(c), int(c.round1_lowest),
                        num(self.little_rps(c), 2), num(self.bound_resolution(c), 4), int(self.bound_disagrees(c)),
                    ])

    @staticmethod
    def open_csv(c: Cell, num) -> list[str]:
        """The open-model columns of a cell (per percentile, the median of the rounds); blank for a closed-loop one."""
        o = c.open_median
        if o is None:
            return [""] * 6
        return [num(o.offered_rate, 2), num(o.p50_ms, 3), num(o.p90_ms, 3), num(o.p999_ms, 3), num(o.max_ms, 3),
                str(int(any(r.behind for r in c.open.values())))]

    # -- charts --

    def write_charts(self) -> None:
        import charts  # matplotlib: only the report draws
        self.write_warmup_chart()
        for sc in self.scenarios:
            if sc["name"] in self.open_names:
                self.write_percentile_chart(sc)
                continue
            bars = []
            for c in self.ranked(sc["name"]):
                flagged = c.total("socket_errors") + c.total("non2xx") > 0
                failure = None
                if not c.rounds:
                    failure = "✗ " + (c.failure_text() or self.short_failure(c) or "no measurement (see summary.md)")
                bars.append(charts.Bar(c.server + self.steady_mark(c), c.rps, c.rps_range, c.req_per_cpu_s,
                                       c.per_cpu_range, c.server in self.reference, flagged, c.noisy, failure))
            subtitle = (f"{scenario_line(sc)} · {median_text(self.rounds_planned)}, "
                        f"{self.meta.get('duration', '?')}s each; whisker = min–max of the rounds"
                        + ("; † = not steady" if any(self.not_steady(c) for c in self.ranked(sc["name"])) else ""))
            charts.bar_chart(self.out / "charts" / sc["name"], sc["name"], subtitle, bars, NOISY_RULE)

    def write_warmup_chart(self) -> None:
        """charts/warmup: every start's warm-up windows (raw/<server>/warmup-start<K>.tsv), when recorded."""
        if not self.warmups:
            return
        import charts
        k = int(self.meta.get("trend_windows") or 4)
        pct = float(self.meta.get("steady_pct") or 20)
        lines = []
        for (server, start), points in self.warmups.items():
            steady = self.starts.get((server, start), {}).get("steady") != "0"
            lines.append(charts.WarmupLine(f"{server} start {start}", relative_warmup(points, k), steady))
        charts.warmup_chart(self.out / "charts" / "warmup", "warm-up",
                            "each warm-up window's req/s as a % of the mean of its scenario's last "
                            f"{k} windows (the level the steady rule judged; the band: ±{pct:g}%), one line "
                            "per server start, broken between its scenarios (raw/<server>/warmup-start<K>.tsv); "
                            "dashed: the start ended not steady (starts.tsv)", lines, band=pct)

    def write_percentile_chart(self, sc: dict) -> None:
        """An open-model scenario: each row's latency distribution (per percentile, the median of the rounds)."""
        import charts
        lines = []
        for c in self.ranked(sc["name"]):
            o = c.open_median
            if o is None or not o.percentiles:
                continue
            behind = any(r.behind for r in c.open.values())
            lines.append(charts.PercentileLine(
                f"{c.server}{self.steady_mark(c)} (p99 {fmt_ms(o.p99_ms)} ms, {fmt_compact(o.achieved_rate)}/s)", o.percentiles,
                c.server in self.reference, behind or c.total("socket_errors") + c.total("non2xx") > 0))
        if lines:
            subtitle = (f"{scenario_line(sc)} · latency from each request's scheduled start (Hyperfoil), per "
                        f"percentile the {median_text(self.rounds_planned)}, {self.meta.get('duration', '?')}s "
                        f"each; * = generator behind its schedule or errors")
            charts.percentile_chart(self.out / "charts" / sc["name"], sc["name"], subtitle, lines)

    def open_lines(self, sc: dict, prefix: str) -> list[str]:
        """An open-model scenario's table: the offered rate, what was achieved, and the latency percentiles."""
        lines = [f"![{sc['name']}: latency by percentile]({prefix}charts/{sc['name']}.svg)", "",
                 "| # | server |" + self.correct_header()[0] + " offered req/s | achieved req/s | p50 ms | p90 ms "
                 "| p99 ms | p99 min–max | p99.9 ms | max ms | errors | non-2xx | generator behind |",
                 "|---:|---|" + self.correct_header()[1] + "---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
        rank = 0
        for c in self.ranked(sc["name"]):
            o = c.open_median
            if o is None:
                lines.append(f"| – | {c.server} |{self.correct_cell(c.server)} **{self.failed_label(c)}** "
                             f"| {md_escape(self.note(c) or 'no measurement')} | | | | | | | | | |")
                continue
            rank += 1
            spread = fmt_range(range_of([r.p99_ms for r in c.open.values()]), fmt_ms)
            behind = [f"round {n}: {r.unsent:,} unsent" + (", sessions exhausted" if r.session_limit_exceeded else "")
                      for n, r in sorted(c.open.items()) if r.behind]
            errors, non2xx = c.total("socket_errors"), c.total("non2xx")
            mark = " ◆" if c.server in self.reference else ""
            partial = f" ({len(c.rounds)}/{self.rounds_planned} rounds)" if len(c.rounds) < self.rounds_planned else ""
            lines.append(f"| {rank} | {c.server}{mark}{self.steady_mark(c)}{partial} |{self.correct_cell(c.server)} "
                         f"{fmt_int(o.offered_rate)} "
                         f"| {fmt_int(o.achieved_rate)} "
                         f"| {fmt_ms(o.p50_ms)} | {fmt_ms(o.p90_ms)} | **{fmt_ms(o.p99_ms)}** | {spread} "
                         f"| {fmt_ms(o.p999_ms)} | {fmt_ms(o.max_ms)} | {f'**{errors}**' if errors else '0'} "
                         f"| {f'**{non2xx}**' if non2xx else '0'} | {'; '.join(behind) or 'no'} |")
        lines += [""] + self.steady_note(self.ranked(sc["name"]))
        lines += [f"Every figure is, per percentile, the {median_text(self.rounds_planned)}; p99 min–max = "
                  "the lowest and highest round's p99. Ranked by p99 (lowest first). Latency is counted from when each request was due on the "
                  "generator's schedule, waits for a free connection included, so a server that falls behind the "
                  "offered rate shows its queue here instead of being sent less (wrk's closed loop). \"Generator "
                  "behind\": Hyperfoil itself could not start requests on time (more than 1% unsent, or its sessions "
                  "exhausted); those were timed from when they started, so that row's latency is understated.", ""]
        return lines

    # -- summary.md / README --

    def markdown(self, level: int, prefix: str) -> str:
        """The summary's body; headings start at `level`, links are prefixed with `prefix`."""
        h = "#" * level
        meta = self.meta
        lines = []
        remote = any(sc["path"].startswith("/remote") for sc in self.scenarios)
        remote_warm = " then GET /remote/1 and /remote-blocking/1 (plain starts)" if remote else ""
        once = meta.get("starts_per_server") == "1"
        starts = ("each row started once for the whole run, every row's JVM alive on its own port, each row's "
                  f"round led by a {meta.get('rewarm', '1')}s re-warm of its first scenario"
                  if once else "each time in a fresh JVM")
        if meta.get("warmup_mode") == "adaptive":
            if meta.get("trend_windows"):
                warm = (f"after each start a warm-up of every scenario, each judged on its own ({meta.get('warmup_min', '4')} "
                        f"windows of 1 s at least, then more until the least-squares drift of req/s over the last "
                        f"{meta['trend_windows']} is within ±{meta.get('steady_pct', '20')}% of their mean and at most "
                        f"{meta.get('jit_quiet', '10')} methods were compiled per window over them, capped at "
                        f"{meta.get('warmup_cap', '?')}s per scenario pooled over the start; see Warm-up){remote_warm}; ")
            else:
                warm = (f"after each start a warm-up until steady (1 s windows of the first scenario until the median of "
                        f"the last three is within {meta.get('steady_pct', '5')}% of the median of the three before and at "
                        f"most {meta.get('jit_quiet', '10')} methods were compiled per window over the last three, capped at {meta.get('warmup_cap', '?')}s; see Warm-up), then "
                        f"{meta.get('warmup_pass', '1')}s of each other scenario{remote_warm}; ")
        elif meta.get("warmup_mode") == "fixed":
            warm = (f"after each start a fixed warm-up of {meta.get('warmup', '?')}s of the first scenario (steadiness "
                    f"judged on its last windows; see Warm-up), then {meta.get('warmup_pass', '1')}s of each other "
                    f"scenario{remote_warm}; ")
        else:
            warm = (f"after each start a warm-up of GET /plaintext then POST /echo 10 KB{remote_warm}, "
                    f"{meta.get('warmup', '?')}s each (not checked for steadiness); ")
        rounds_note = (f"{self.rounds_planned} round(s), interleaved: every server once per round, in the same "
                       f"order, {starts}; {meta.get('duration', '?')}s per scenario; {warm}"
                       f"workers {meta.get('workers', '?')}; wrk -t{meta.get('wrk_threads', '1')}. "
                       f"{isolation_text(meta)}")
        lines += [
            f"Run `{meta.get('run_id', self.run.name)}` ({meta.get('started', '?')} UTC"
            f"{', quick mode' if meta.get('quick') == '1' else ''}). {rounds_note}",
            "",
            f"Every figure is the {median_text(self.rounds_planned)}, each column on its own (the middle "
            "value of an odd number of rounds, the mean of the middle two of an even number), with the lowest and "
            "highest round (min–max) beside req/s; socket errors and non-2xx/3xx responses are summed over all "
            "rounds. Only answers 2xx or 3xx count (goodput): req/s = (requests − non-2xx/3xx answers) ÷ the "
            "generator's window (wrk counts every answer in its requests and req/s; h2load's succeeded are its 2xx/3xx "
            "answers, its failed streams its 4xx/5xx answers and its errored streams, the errored ones counted as "
            "socket errors), and the ratios and CPU figures use the same good requests; the errors are beside them, "
            "never in them. A round that completed no request (only timeouts or socket errors) is a failed round: it is "
            "listed under Failures, and a cell with no other round is a failure row, never a figure. Server CPU is the "
            "server process's CPU time during the scenario, JIT and GC threads included: nanoseconds where "
            "measurements.tsv has them (cpu_ns), else utime+stime from `/proc/<pid>/stat` (clock ticks ÷ clk_tck); "
            "req/CPU-s = good requests ÷ server CPU-seconds, CPU ms/req = server CPU-seconds × 1000 ÷ good requests "
            "(per round, then the median; ∞ for a round that answered only errors). CPU ms/req has its own marks: ≈ "
            f"noisy when its rounds spread over {NOISY_SPREAD:.0%} of its median, ± coarse when a round's CPU was read "
            f"in fewer than {COARSE_TICKS} clock ticks (one tick then moves it by over 1%; never with cpu_ns). "
            f"{ROUND1_MARK} = round 1 had the cell's lowest req/s (see Per-round trend). "
            "\"vs best reference\" = req/s divided by that of "
            "the best reference row in the same scenario (the reference rows, marked ◆: the frameworks users would "
            "pick instead, NettyServer and the references/ modules; each scenario names its best one; "
            "blank when no reference row has a figure there). "
            f"Machine, JDK, flags and commit: [environment.md]({prefix}environment.md); "
            f"raw wrk output: raw/ ([raw.tar.gz]({prefix}raw.tar.gz) once under results/); all numbers: [summary.csv]({prefix}summary.csv).",
            "",
        ]
        failures = self.failures()
        lines.append(f"{h}# Failures")
        lines.append("")
        # a failed cell's rounds are said once, in its failure line
        problems = [f"{c.server} {c.scenario}: {p}" for c in self.cells.values() if not c.failure_text()
                    for p in c.problems]
        failed_cells = [f"{c.server} {c.scenario}: {c.failure_text()}" for c in self.cells.values() if c.failure_text()]
        for server, msgs in failures.items():
            for msg in msgs:
                lines.append(f"- **{server}** — {md_escape(msg)}")
        if failed_cells:
            lines.append(f"- Failed cells (no round completed a request; failure rows in the tables): "
                         + "; ".join(md_escape(f) for f in failed_cells))
        for p in problems:
            lines.append(f"- {md_escape(p)}")
        if not failures and not problems and not failed_cells:
            lines.append("None: every server started and answered every route correctly before it was measured, "
                         "and every measured round completed requests.")
        for w in self.warnings():
            lines.append(f"- warning: {md_escape(w)}")
        no_tls = [e for e in self.events if self.excused(e) and e["kind"] == "tls-unavailable"]
        no_h2 = [e for e in self.events if self.excused(e) and e["kind"] == "h2-unavailable"]
        no_route = [e for e in self.events if self.excused(e) and e["kind"] == "route-unavailable"]
        if no_tls:
            lines += ["", "No TLS (not counted as a failure): started with the TLS properties, these rows answered "
                      "plain HTTP, so their TLS scenarios have no figures. A reference row speaks TLS once its "
                      "module honours `-Dspindle.tls.*`; a `--baseline` commit may predate TLS.", ""]
            for e in no_tls:
                lines.append(f"- **{e['server']}** — {md_escape(self.event_text(e))}")
        if no_h2:
            lines += ["", "No h2 (not counted as a failure): one request by h2load (h2c with prior knowledge on the "
                      "plain start, h2 alone offered by ALPN on the TLS start) got no answer, so these rows' h2 "
                      "scenarios are n/a, with h2load's words. A reference row speaks h2 once its module enables it; "
                      "a `--baseline` commit may predate it.", ""]
            for e in no_h2:
                lines.append(f"- **{e['server']}** — {md_escape(self.event_text(e))}")
        if no_route:
            lines += ["", "No route (not counted as a failure): these rows answered 404 to a route a reference may "
                      "lack (POST /multipart, GET /users-list), so their scenarios on it are n/a. A reference row gets them once its "
                      "module serves the route; a `--baseline` commit may predate it.", ""]
            for e in no_route:
                lines.append(f"- **{e['server']}** — {md_escape(self.event_text(e))}")
        skipped = meta.get("skipped", "")
        if skipped:
            lines += ["", f"Not in this run: {md_escape(skipped)}."]
        lines.append("")

        lines += self.warmup_lines(h, prefix)
        lines += self.trend_lines(h)
        lines += self.overview(h)
        lines += self.open_overview(h)
        lines += self.baseline_lines(h)

        for sc in self.scenarios:
            lines += [f"{h}# {sc['name']}", "", f"{scenario_line(sc)}.", ""]
            if sc["name"] in self.open_names:
                lines += self.open_lines(sc, prefix)
                continue
            if sc["name"] in self.tls_names:
                lines += self.tls_lines(prefix)
            lines.append(f"![{sc['name']}: req/s and requests per server CPU-second]({prefix}charts/{sc['name']}.svg)")
            best_row = self.best_reference_row(sc["name"])
            if best_row:
                lines += ["", f"Best reference here: **{best_row}** ({fmt_int(self.best_reference(sc['name']))} req/s)."]
            header, align = self.correct_header()
            lines += ["", "| # | server |" + header + " req/s | min–max | avg ms | p99 ms | socket errors | non-2xx "
                          "| server CPU s | req/CPU-s | CPU ms/req | vs best reference |",
                      "|---:|---|" + align + "---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            rank = 0
            for c in self.ranked(sc["name"]):
                if c.rps is None:
                    reason = self.note(c) or "no measurement"
                    lines.append(f"| – | {c.server}{self.steady_mark(c)} |{self.correct_cell(c.server)} "
                                 f"**{self.failed_label(c)}** | {md_escape(reason)} | | | | | | | | |")
                    continue
                rank += 1
                spread = fmt_range(c.rps_range, fmt_int) if len(c.rounds) > 1 else ""
                spread += " ≈ noisy" if c.noisy else ""
                spread += f" {ROUND1_MARK}" if c.round1_lowest else ""
                errors = c.total("socket_errors")
                err_text = str(errors)
                if errors:
                    parts = [f"{k} {c.total(k)}" for k in ("connect", "read", "write", "timeout", "failed") if c.total(k)]
                    err_text = f"**{errors}** ({', '.join(parts)})"
                non2xx = c.total("non2xx")
                ratio = self.ratio(c)
                partial = f" ({len(c.rounds)}/{self.rounds_planned} rounds)" if len(c.rounds) < self.rounds_planned else ""
                mark = " ◆" if c.server in self.reference else ""
                lines.append(
                    f"| {rank} | {c.server}{mark}{self.steady_mark(c)}{partial} |{self.correct_cell(c.server)} "
                    f"{fmt_int(c.rps)} | {spread} | {fmt_ms(c.latency_avg_ms) or 'n/a'} "
                    f"| {fmt_ms(c.latency_p99_ms) or 'n/a'} | {err_text} | {f'**{non2xx}**' if non2xx else '0'} "
                    f"| {'' if c.cpu_s is None else f'{c.cpu_s:.2f}'} | {fmt_int(c.req_per_cpu_s)} "
                    f"| {fmt_ms(c.ms_cpu_per_request)}{self.cpu_marks(c)} | {'' if ratio is None else f'{ratio:.2f}×'} |")
            lines.append("")
            lines += self.mark_note(self.ranked(sc["name"]))
            lines += self.steady_note(self.ranked(sc["name"]))
            bound = upper_bound(sc)
            best = max((c.rps for c in self.cells.values() if c.scenario == sc["name"] and c.rps is not None), default=None)
            if bound is not None and best is not None:
                lines += [f"Upper bound {fmt_int(bound)} req/s ({bound_text(sc).split('(', 1)[1]}; "
                          f"the best row reaches {best / bound:.0%} of it.", ""]
                lines += self.bound_lines(sc, bound)
            if sc["name"] in self.tls_names:
                lines += self.tls_cost_lines(sc)
        lines += self.conformance_lines(h)
        if any(c.rounds and c.latency_p99_ms is None for c in self.cells.values()):
            lines += ["Latency n/a: wrk gave no usable figure. Either it recorded no latency sample (with "
                      "pipelining, a server that closes the connection after each response never completes a "
                      "batch) or it printed a 0 µs percentile beside a non-zero average (a wrk 4.1 quirk "
                      "under pipelining); the raw output has what wrk printed.", ""]
        return "\n".join(lines) + "\n"

    @staticmethod
    def cpu_source(c: Cell) -> str:
        """How a cell's server CPU was read: "ns" (measurements.tsv cpu_ns), "ticks", both, or blank (not sampled)."""
        measured = {rnd for rnd, _, cpu in c.rounds if cpu is not None}
        kinds = [k for k, rounds in (("ns", c.cpu_ns), ("ticks", set(c.cpu_ticks))) if measured & rounds]
        return "+".join(kinds)

    @staticmethod
    def cpu_marks(c: Cell) -> str:
        """CPU per request's own marks: ≈ noisy (its rounds spread as req/s's rule), ± coarse (clock ticks)."""
        return (" ≈" if c.cpu_noisy else "") + (" ±" if c.cpu_coarse else "")

    def mark_note(self, cells: list[Cell]) -> list[str]:
        """Under a scenario table: what its CPU and trend marks mean, when any cell has one."""
        parts = []
        if any(c.cpu_noisy for c in cells):
            parts.append(f"≈ beside CPU ms/req = its rounds spread over {NOISY_SPREAD:.0%} of its median")
        if any(c.cpu_coarse for c in cells):
            parts.append(f"± = coarse: a round's server CPU was read in fewer than {COARSE_TICKS} clock ticks "
                         f"(1/{self.clk_tck} s each), so one tick moves CPU ms/req and req/CPU-s by over 1%")
        if any(c.round1_lowest for c in cells):
            parts.append(f"{ROUND1_MARK} = round 1 had the lowest req/s of the cell's rounds (see Per-round trend)")
        return ["; ".join(parts) + ".", ""] if parts else []

    def open_overview(self, h: str) -> list[str]:
        """The open-model scenarios' p99 per row (the median of the rounds, min–max beside), servers in the list's
        order."""
        names = [sc["name"] for sc in self.scenarios if sc["name"] in self.open_names]
        if not names:
            return []
        lines = [f"{h}# Open model: p99 latency (ms) at a constant offered rate, {median_text(self.rounds_planned)}; "
                 "min–max in brackets", "",
                 "| server | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        cells = []
        for s in self.servers:
            vals = []
            for n in names:
                c = self.cells[(s["name"], n)]
                cells.append(c)
                o = c.open_median
                spread = fmt_range(range_of([r.p99_ms for r in c.open.values()]), fmt_ms) if len(c.open) > 1 else ""
                vals.append(f"**{self.failed_label(c)}**" if o is None else
                            fmt_ms(o.p99_ms) + (f" ({spread})" if spread else "")
                            + (" ⚠" if any(r.behind for r in c.open.values())
                               or c.total("socket_errors") + c.total("non2xx") else "") + self.steady_mark(c))
            lines.append(f"| {s['name']} | " + " | ".join(vals) + " |")
        lines += ["", "⚠ = the generator fell behind its schedule, or errors / non-2xx (see the scenario's table).", ""]
        return lines + self.steady_note(cells)

    def overview_cell(self, c: Cell, spread: bool = False) -> str:
        """One overview cell: the median req/s (with min–max when asked) and its marks, or the failure."""
        if c.rps is None:
            return f"**{self.failed_label(c)}**"
        text = fmt_int(c.rps)
        if spread and len(c.rounds) > 1:
            text += f" ({fmt_range(c.rps_range, fmt_compact)})"
        return (text + (" ⚠" if c.total("socket_errors") + c.total("non2xx") else "") + (" ≈" if c.noisy else "")
                + (f" {ROUND1_MARK}" if c.round1_lowest else "") + self.steady_mark(c))

    def overview(self, h: str, spread: bool = False) -> list[str]:
        """The req/s matrix, servers in the list's order, with its legend; with `spread`, each cell's min–max."""
        lines = [f"{h}# Overview: req/s, {median_text(self.rounds_planned)}"
                 + ("; min–max in brackets" if spread else ""), ""]
        names = [sc["name"] for sc in self.scenarios if sc["name"] not in self.open_names]
        header, align = self.correct_header()
        lines.append("| server |" + header + " " + " | ".join(names) + " |")
        lines.append("|---|" + align + "---:|" * len(names))
        cells = []
        for s in self.servers:
            row = [self.cells[(s["name"], n)] for n in names]
            cells += row
            lines.append(f"| {s['name']} |{self.correct_cell(s['name'])} "
                         + " | ".join(self.overview_cell(c, spread) for c in row) + " |")
        bounds = [upper_bound(sc) for sc in self.scenarios if sc["name"] not in self.open_names]
        if any(b is not None for b in bounds):
            lines.append("| *upper bound* |" + (" |" * len(self.RULES) if self.conformance else "") + " "
                         + " | ".join("" if b is None else f"*{fmt_int(b)}*" for b in bounds) + " |")
        correct_legend = ("RFC 9112 / contract = the row's conformance cases passed / cases run, those RFC 9110/9112 "
                          "require and those of Spindle's stricter contract (failures listed under the tables of "
                          "summary.md). " if self.conformance else "")
        failed_legend = ("**failed** = no figure: the row did not start or answer correctly, or no round completed a "
                         "request (see Failures). " if any(c.rps is None for c in cells) else "")
        trend = self.trend_cells()
        trend_legend = (f" {ROUND1_MARK} = round 1 was the lowest of the cell's rounds (a rising trend: perhaps still "
                        f"warming): round 1 lowest in {sum(c.round1_lowest for c in trend)} of {len(trend)} cells, where "
                        f"chance alone gives about 1 in {median_of([len(c.rounds) for c in trend]):g}."
                        if any(c.round1_lowest for c in cells) else "")
        lines += ["", correct_legend + failed_legend + "req/s counts the answers 2xx/3xx only (goodput). "
                  "⚠ = socket errors or non-2xx/3xx responses in that cell (see its "
                  f"table). ≈ = noisy: the {NOISY_RULE} (its rank may not hold in another run; a finding from it "
                  "must say so)." + trend_legend
                  + (" Upper bound = connections ÷ the time each request waits (one request in flight per "
                     "connection): no server can answer more." if any(b is not None for b in bounds) else ""), ""]
        return lines + self.steady_note(cells)

    def bound_lines(self, sc: dict, bound: float) -> list[str]:
        """For a waiting scenario: each row's share of the upper bound, and the thread caps that
        explain a blocking route's shortfall (a platform thread held for the whole wait)."""
        cells = [c for c in self.ranked(sc["name"]) if c.rps is not None]
        if not cells:
            return []
        windowed = any(r.window_seconds for c in cells for _, r, _ in c.rounds)
        how = ("the 2xx/3xx answers completed inside a fixed window of the run ÷ the window's length ÷ the bound "
               "(wrk: from two waits after the start to 100 ms before the end, every connection's first request "
               "held back by its share of one wait, so the connections do not end their waits together: "
               "bench-window.lua; h2load, whose streams start together: from its per-request log, a window one "
               "longest request inside its timed window, a request that straddles an edge counted by the share "
               "of its time inside)" if windowed else
               "the good requests wrk or h2load completed in its window ÷ its duration ÷ the bound")
        resolution_text = ("Resolution = for wrk, the requests that started in one millisecond of that spread "
                           "(wrk's timer step: connections ÷ the wait in ms) as a share of the window's count, as "
                           "they may end together at the window's edge; for h2load, one request of it. " if windowed else
                           "Resolution = one wait's worth of requests (those in flight) as a share of the cell's "
                           "requests: the requests in flight end their waits together, so the window's count moves "
                           "in steps of that size (a 2 s cell of 100 ms waits at 1,000 connections completes 19,000 "
                           "or 20,000: 5.3%). ")
        lines = [f"Share of the upper bound, two ways: % of bound = {how}; Little's law = the requests in flight "
                 "(connections, or streams on h2) ÷ the mean latency, times the share answered 2xx/3xx, ÷ the bound. "
                 + resolution_text +
                 f"{DISAGREE_MARK} = the two differ by more than the resolution or {AGREE_WITHIN:.0%}, whichever is "
                 "larger: the window's figure is an artefact of where the window ended, or the latency was not the "
                 "same inside the window as over the run, or fewer requests were in flight at the server than the "
                 "generator holds open (a server that leaves connections unserved: Little's law then overstates "
                 "it).", "",
                 "| server | req/s | % of bound | Little's law req/s | % of bound | resolution | |",
                 "|---|---:|---:|---:|---:|---:|---|"]
        for c in cells:
            little, resolution = self.little_rps(c), self.bound_resolution(c)
            lines.append(f"| {c.server}{self.steady_mark(c)} | {fmt_int(c.rps)} | {100 * c.rps / bound:.1f}% "
                         f"| {fmt_int(little)} | {'' if little is None else f'{100 * little / bound:.1f}%'} "
                         f"| {'' if resolution is None else f'{100 * resolution:.2f}%' if resolution < 0.01 else f'{100 * resolution:.1f}%'} "
                         f"| {DISAGREE_MARK if self.bound_disagrees(c) else ''} |")
        judged = [c for c in cells if self.little_rps(c) is not None and self.bound_resolution(c) is not None]
        lines += ["", f"Window and Little's law agree within the resolution or {AGREE_WITHIN:.0%} in "
                      f"{sum(not self.bound_disagrees(c) for c in judged)} of {len(judged)} rows.", ""]
        wait_s = int(sc["wait_ms"]) / 1000
        if sc.get("blocking") == "1" and not any(p in sc["path"] for p in ("/delay/", "/remote/", "/remote-tls/", "/remote-h2/")):
            cpus = self.meta.get("server_cpus", "")
            caps = [(s["name"], n) for s in self.servers
                    if (n := platform_threads(s, int(cpus) if cpus.isdigit() else None)) is not None
                    and n < int(sc["connections"])]
            if caps:
                lines.append("This route blocks its thread for the whole wait, so a pool of N platform threads "
                             "answers at most N ÷ wait: " + ", ".join(
                                 f"{name} ({n} threads) {fmt_int(n / wait_s)} req/s" for name, n in caps)
                             + ". Virtual threads, a thread per connection and event loops that offload to virtual "
                               "threads are bounded by the connections only.")
        elif sc.get("blocking") == "1":
            caps = [(s["name"], n) for s in self.servers if (n := connection_pool_threads(s)) is not None
                    and n < int(sc["connections"])]
            if caps:
                lines.append("No thread waits in this route's handler, but a blocking server's pool thread keeps its "
                             "connection until the answer is written (it parks while the handler waits), so a pool of "
                             "N threads serves N connections at a time and answers at most N ÷ wait: " + ", ".join(
                                 f"{name} ({n} threads) {fmt_int(n / wait_s)} req/s" for name, n in caps)
                             + ". Event loops, io_uring rings and servlet async (Tomcat) hand the connection back while "
                               "the request waits, and virtual threads cost no pool slot.")
        else:
            caps = []
        by_row = {c.server: c for c in cells}
        over = [name for name, n in caps if name in by_row
                and (little := self.little_rps(by_row[name])) is not None and little > n / wait_s * 1.005]
        if over:
            lines.append(f"{DISAGREE_MARK} on a capped row: Little's law, from the mean latency of the requests "
                         "answered, puts " + ", ".join(over) + " above the most its threads can answer, so there it "
                         "is Little's law that misreads the row (connections queued behind the pool hold no request "
                         "at a thread, and those still unanswered when the run ends are in no latency), not the "
                         "window.")
        return lines + [""]

    def tls_lines(self, prefix: str) -> list[str]:
        """What the TLS scenarios measured: key and negotiated parameters per row (tls.tsv)."""
        key = self.meta.get("tls_key") or "?"
        by_outcome: dict[tuple, list[str]] = {}
        for t in self.tls:
            outcome = (t["protocol"], t["cipher"], t["key_exchange"], t["signature"])
            rows = by_outcome.setdefault(outcome, [])
            if t["server"] not in rows:
                rows.append(t["server"])
        lines = [f"Server key: {md_escape(key)} (made per run; [environment.md]({prefix}environment.md#tls)). "
                 "Negotiated with OpenSSL's defaults (wrk's library, checked with `openssl s_client`):"]
        if not by_outcome:
            lines.append("no row passed its HTTPS checks.")
        for (proto, cipher, kex, sig), rows in by_outcome.items():
            who = "every row that spoke TLS" if len(by_outcome) == 1 else ", ".join(rows)
            lines.append(f"- {proto}, {cipher}, key exchange {kex}, server signature {sig} — {md_escape(who)}")
        return lines + [""]

    def plain_twin(self, sc: dict) -> dict | None:
        """The plain scenario a TLS one mirrors (same request, connections and wrk script), if it ran."""
        keys = ("method", "path", "connections", "script", "script_args", "streams")
        return next((o for o in self.scenarios if o["name"] not in self.tls_names
                     and all(o.get(k, "") == sc.get(k, "") for k in keys)), None)

    def tls_cost_lines(self, sc: dict) -> list[str]:
        """Per row, the TLS scenario beside its plain twin: what HTTPS costs in req/s and CPU."""
        plain = self.plain_twin(sc)
        if plain is None:
            return []
        lines = [f"HTTPS against plain HTTP (`{plain['name']}`, the same requests; separate server starts):", "",
                 "| server | plain req/s | HTTPS req/s | HTTPS/plain | plain req/CPU-s | HTTPS req/CPU-s | HTTPS/plain |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        cells = []
        for s in self.servers:
            a, b = self.cells[(s["name"], plain["name"])], self.cells[(s["name"], sc["name"])]
            if a.rps is None and b.rps is None:
                continue

            def ratio(x, y):
                return f"{x / y:.2f}×" if x and y else ""
            cells += [a, b]
            lines.append(f"| {s['name']} | {self.figure(a)} | {self.figure(b)} "
                         f"| {ratio(b.rps, a.rps)} | {fmt_int(a.req_per_cpu_s)} | {fmt_int(b.req_per_cpu_s)} "
                         f"| {ratio(b.req_per_cpu_s, a.req_per_cpu_s)} |")
        return lines + [""] + self.steady_note(cells)

    def figure(self, c: Cell) -> str:
        """A cell's median req/s with its noisy and not-steady marks, or its failure."""
        if c.rps is None:
            return self.failed_label(c)
        return fmt_int(c.rps) + (" ≈" if c.noisy else "") + self.steady_mark(c)

    def twins(self) -> list[tuple[str, str]]:
        """(row, its baseline twin) for a run with --baseline."""
        names = {s["name"] for s in self.servers}
        return [(s["baseline_of"], s["name"]) for s in self.servers
                if s.get("baseline_of") and s["baseline_of"] in names]

    def paired_ratios(self, row: str, twin: str, scenario: str, attr: str) -> list[float]:
        """Per round, this row's figure over its twin's: the two ran back to back in that round."""
        def per_round(cell: Cell) -> dict:
            out = {}
            for rnd, result, cpu in cell.rounds:
                good = result.good_requests
                value = result.good_rps if attr == "rps" else (good / cpu if cpu and good else None)
                if value:
                    out[rnd] = value
            return out
        mine, theirs = per_round(self.cells[(row, scenario)]), per_round(self.cells[(twin, scenario)])
        return sorted(mine[r] / theirs[r] for r in mine.keys() & theirs.keys())

    def baseline_lines(self, h: str) -> list[str]:
        twins = self.twins()
        if not twins:
            return []
        lines = [f"{h}# Against the baseline", "",
                 "Each row and its `@<rev>` twin (the baseline commit, built apart and checked with its own route checks) "
                 "ran back to back in every round. "
                 "Ratios are this tree over the baseline, per round, then the median of the rounds "
                 "(min–max beside it); above 1 is better for both.", "",
                 "| row | scenario | req/s | baseline req/s | req/s ratio | req/CPU-s | baseline req/CPU-s | req/CPU-s ratio |",
                 "|---|---|---:|---:|---:|---:|---:|---:|"]

        def fmt(ratios: list[float]) -> str:
            if not ratios:
                return ""
            mid = statistics.median(ratios)
            return f"{mid:.2f}×" + (f" ({ratios[0]:.2f}–{ratios[-1]:.2f})" if len(ratios) > 1 else "")
        cells = []
        for row, twin in twins:
            for sc in self.scenarios:
                a, b = self.cells[(row, sc["name"])], self.cells[(twin, sc["name"])]
                cells += [a, b]
                lines.append(f"| {row} | {sc['name']} | {self.figure(a)} | {self.figure(b)} "
                             f"| {fmt(self.paired_ratios(row, twin, sc['name'], 'rps'))} "
                             f"| {fmt_int(a.req_per_cpu_s)} | {fmt_int(b.req_per_cpu_s)} "
                             f"| {fmt(self.paired_ratios(row, twin, sc['name'], 'cpu'))} |")
        lines.append("")
        return lines + self.steady_note(cells)

    def write_summary(self) -> None:
        title = f"# Spindle benchmark run {self.meta.get('run_id', self.run.name)}\n\n"
        # What a person concluded from the figures, kept apart so a regenerated report keeps it.
        notes = self.run / "notes.md"
        told = ("## What this run shows\n\n" + notes.read_text(encoding="utf-8").strip() + "\n\n") if notes.is_file() else ""
        (self.out / "summary.md").write_text(title + told + self.markdown(1, ""), encoding="utf-8")

    def terminal_overview(self) -> str:
        names = [sc["name"] for sc in self.scenarios if sc["name"] not in self.open_names]
        width = max([len(s["name"]) for s in self.servers] + [6])
        cols = [max(len(n), 9) for n in names]
        # the correctness column, when any row was checked, right after the name
        correct = "  RFC9112  contract" if self.conformance else ""
        out = [f"req/s, {median_text(self.rounds_planned)} (* = socket errors or non-2xx, † = not steady):",
               " " * width + correct + "  " + "  ".join(n.rjust(w) for n, w in zip(names, cols))]
        for s in self.servers:
            vals = []
            for n, w in zip(names, cols):
                c = self.cells[(s["name"], n)]
                v = ("failed" if c.rps is None and c.failure_text() else self.failed_label(c) if c.rps is None
                     else fmt_compact(c.rps) + ("*" if c.total("socket_errors") + c.total("non2xx") else "")
                     + ("†" if self.not_steady(c) else ""))
                vals.append(v.rjust(w))
            score = ("  " + self.correct(s["name"], "rfc9112").rjust(7) + "  " + self.correct(s["name"], "contract").rjust(8)
                     if correct else "")
            out.append(s["name"].ljust(width) + score + "  " + "  ".join(vals))
        bounds = [upper_bound(sc) for sc in self.scenarios if sc["name"] not in self.open_names]
        if any(b is not None for b in bounds):
            out.append("upper bound".ljust(width) + " " * len(correct) + "  " + "  ".join(
                ("" if b is None else fmt_compact(b)).rjust(w) for b, w in zip(bounds, cols)))
        opened = [sc["name"] for sc in self.scenarios if sc["name"] in self.open_names]
        if opened:
            cols = [max(len(n), 9) for n in opened]
            out += ["", f"open model, p99 ms, {median_text(self.rounds_planned)} (* = generator behind or errors):",
                    " " * width + "  " + "  ".join(n.rjust(w) for n, w in zip(opened, cols))]
            for s in self.servers:
                vals = []
                for n, w in zip(opened, cols):
                    c = self.cells[(s["name"], n)]
                    o = c.open_median
                    flag = o is not None and (any(r.behind for r in c.open.values())
                                              or c.total("socket_errors") + c.total("non2xx") > 0)
                    vals.append(("failed" if o is None and c.failure_text() else self.failed_label(c) if o is None
                                 else fmt_ms(o.p99_ms) + ("*" if flag else "")).rjust(w))
                out.append(s["name"].ljust(width) + "  " + "  ".join(vals))
        return "\n".join(out)


def isolation_text(meta: dict) -> str:
    """Where the load generator ran relative to the server: the network path and the CPU sets."""
    path = meta.get("isolation") or "loopback: server and clients in the host's network namespace, over 127.0.0.1"
    server, client = meta.get("pin_server", ""), meta.get("pin_client", "")
    if server or client:
        cpus = f"server on CPU(s) {server or 'any'}, wrk and the checks on CPU(s) {client or 'any'} (taskset)"
    else:
        cpus = "server and wrk unpinned, sharing every CPU"
    return f"Isolation: {path}; {cpus}."


def platform_threads(server: dict, cpus: int | None) -> int | None:
    """The platform threads a row's blocking routes run on, where a fixed pool bounds them: Tomcat's
    `server.tomcat.threads.max` (unless the row runs virtual threads), ThreadPoolServer's workers,
    WebFlux's offload (Reactor's boundedElastic: 10 per CPU the server JVM sees; the @Async-style
    pool: its 100 core threads, since 1,000 clients never fill its 1,000-deep queue) or Vert.x's
    worker pool (20 unless -Dspindle.vertx.workerPoolSize). None where a blocking request gets a
    thread of its own (virtual threads, a thread per connection) or the row does not say."""
    props = dict(p[2:].split("=", 1) for p in (server.get("props") or "").split() if p.startswith("-D") and "=" in p)
    cls = server.get("class")
    if props.get("spring.threads.virtual.enabled") == "true":
        return None
    if cls == "SpringMvcServer":
        value = props.get("server.tomcat.threads.max", "")
        return int(value) if value.isdigit() else None
    if cls == "SpringWebFluxServer":
        if props.get("spindle.webflux.offload") == "async-pool":
            return 100
        return 10 * cpus if cpus else None
    if cls == "VertxServer":
        value = props.get("spindle.vertx.workerPoolSize", "20")
        return int(value) if value.isdigit() else None
    return connection_pool_threads(server)


def connection_pool_threads(server: dict) -> int | None:
    """The pool threads that hold a row's connections for as long as a request is in flight, even
    while an asynchronous handler waits: ThreadPoolServer's workers. None for every other row."""
    workers = server.get("workers") or ""
    if server.get("class") == "ThreadPoolServer" and workers.isdigit():
        return int(workers)
    return None


def windowed_scenario(sc: dict) -> bool:
    """Whether the benchmark script counts this scenario in a fixed window: a waiting closed-loop scenario with no
    wrk script of its own (bench-window.lua), or a waiting h2load one (its per-request log)."""
    wait = sc.get("wait_ms") or ""
    return wait.isdigit() and int(wait) > 0 and not sc.get("open") and not sc.get("script")


def in_flight(sc: dict) -> int:
    """Requests a scenario keeps in flight: one per connection (wrk), or the streams of every connection (h2load)."""
    streams = sc.get("streams") or ""
    return int(sc["connections"]) * (int(streams) if streams.isdigit() else 1)


def upper_bound(sc: dict) -> float | None:
    """The most req/s a scenario whose every request waits `wait_ms` can reach: requests in flight ÷ wait
    (each connection has one request in flight, an h2 one its streams). None for scenarios that do not wait."""
    wait = sc.get("wait_ms") or ""
    if not wait.isdigit() or int(wait) == 0:
        return None
    return in_flight(sc) * 1000 / int(wait)


def bound_text(sc: dict) -> str:
    bound = upper_bound(sc)
    if bound is None:
        return ""
    what = (f"{in_flight(sc):,} streams ({int(sc['connections']):,} connections x {int(sc['streams']):,})"
            if (sc.get("streams") or "").isdigit() else f"{int(sc['connections']):,} connections")
    return f"upper bound {fmt_int(bound)} req/s ({what} ÷ {int(sc['wait_ms']) / 1000:g} s)"


def scenario_line(sc: dict) -> str:
    what = f"{sc['method']} {sc['path']}"
    extra = sc.get("description", "")
    if sc.get("open"):
        return (f"{what} at a constant rate ({open_rate_text(sc['open'])}), Hyperfoil with up to {sc['connections']} "
                f"connections{', ' + extra if extra else ''}, request timeout {sc['timeout']}")
    bound = bound_text(sc)
    if (sc.get("streams") or "").isdigit():
        return (f"{what} over HTTP/2, h2load with {sc['connections']} connections x {sc['streams']} streams"
                f"{', ' + extra if extra else ''}{', ' + bound if bound else ''}")
    return (f"{what}, {sc['connections']} connections{', ' + extra if extra else ''}, wrk timeout {sc['timeout']}"
            f"{', ' + bound if bound else ''}")


def open_rate_text(spec: str) -> str:
    """An open-model scenario's rate as benchmark-servers.sh states it: "pct:25:delay100-c1000" (a share of
    the row's result in that scenario, in the same server start) or "rate:3000" (the same for every row)."""
    kind, _, rest = spec.partition(":")
    if kind == "pct":
        share, _, base = rest.partition(":")
        return f"{share}% of the row's own {base} req/s in the same server start"
    return f"{int(rest):,} req/s for every row"


def md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


README_INTRO = """# Benchmark results

Every figure here comes from one command, run on one machine with nothing else busy:

```sh
scripts/benchmark-servers.sh                # the default run (< 20 min on 2 cores, even with every warm-up at its 30 s
                                            # cap): one row per I/O model and every reference, 6 scenarios, 3 rounds
                                            # of 2 s, workers 2
scripts/benchmark-servers.sh --full         # every row and scenario, 3 rounds of 10 s, a fresh JVM per row and round
                                            # (hours; its plan says how long)
scripts/benchmark-servers.sh --servers VirtualThreadServer,NettyServer --rounds 5 1 10
scripts/benchmark-servers.sh --pin-server 1 --pin-client 0    # server and wrk on separate CPUs
scripts/benchmark-servers.sh --netns        # wrk in its own network namespace, across a veth pair
scripts/benchmark-servers.sh --open-model --pin-server 1 --pin-client 0
                                            # latency at constant offered rates (Hyperfoil), percentile charts
scripts/benchmark-servers.sh --h2           # the HTTP/2 scenarios (h2load): h2c plaintext and JSON, /delay/100 with
                                            # 1,000 streams on 8 connections, h2 over TLS (also in --full)
scripts/benchmark-servers.sh --servers MultiLoopServer --scenarios echo-500KB --baseline HEAD~1 --rounds 5 2 5
                                            # A/B: each row beside the same row built from another commit
scripts/benchmark-servers.sh --quick        # smoke run (CI): 2 s, 1 round, 8 scenarios, output in /tmp
```

Each row is started once for the whole run (`--start-per-round`, the default of `--full`, starts a
fresh JVM per row and round, all with the same flags). Its routes' answers are checked (a wrong
answer is a failure row, never a measurement), then every one of its scenarios is warmed up and
judged on its own: 4 windows of 1 s first, then more until the least-squares drift of req/s over
its last 4 windows is within ±20% of their mean and `jstat -compiler` counts at most 10 methods
compiled per window over them, at most 7 s per scenario pooled over the start (a start with a
scenario not steady at the cap is marked † "not steady" in every table). Every row's JVM stays alive on its own
port; rounds are interleaved (every row once, then again), each row's round led by a 1 s re-warm.
The default run takes plaintext, pipelined, echo 10 KB and the three waiting ones, 3 rounds of 2 s
with no pause: to fit 20 minutes with steady rows it leaves out JSON, 4 s cells and the pause
between scenarios (`--full` and `--scenarios` still run them). The `--full` scenarios: plaintext at 256 and
1,000 connections, plaintext pipelined 16 deep, JSON, a path variable, POST `/echo` with 72 B,
10 KB, 100 KB and 500 KB bodies, `/blocking/100`, `/delay/100`, `/remote/100` and
`/remote-blocking/100` at 1,000 connections (the remote routes call `/delay/100` on a downstream
MultiLoopServer the script starts once per run; each of these waiting scenarios is printed beside
its upper bound, 1,000 connections ÷ 0.1 s = 10,000 req/s; wrk drives them with `scripts/lib/bench-window.lua`,
which spreads the connections' first requests over one wait and counts the 2xx/3xx answers of a fixed
window inside the run, so the count does not move in whole waves of answers, and Little's law is printed
beside it), a 1 MiB download, and plaintext over HTTPS at 256 connections (`plaintext-tls-c256`: a second start of
each server with an EC P-256 key made per run; the negotiated protocol and cipher suite are in
`environment.md`). It samples the server
process's CPU time around each scenario, so every row also says how many requests one server
CPU-second buys: on a small machine wrk shares the cores and caps plain req/s, and efficiency and
the pipelined scenario are what separate fast servers. Before round 1 every row is checked
black-box by the shared conformance cases (`scripts/conformance-check.sh`): beside each row,
`RFC 9112` is cases passed / run of those the RFCs require and `contract` of those Spindle's own
stricter contract adds (a reference may answer those differently without being wrong); the failures
are listed under the tables, grouped so. `environment.md`
and the summary say how client and server were isolated (loopback or network namespaces, CPU
pinning); a run's `notes.md`, when there is one, is what a person concluded from it.

A run writes `results/<UTC timestamp>/`: `summary.md` (ranked tables: the true median of the rounds
with their min–max beside it, errors beside each figure; a cell whose rounds spread more than 20% of
the median marked noisy, ≈, and a cell with no completed request a failure row; only 2xx/3xx answers
count in req/s, ratios and CPU, the errors beside them; server CPU per request = CPU-seconds ÷ those
good requests), `summary.csv`, `charts/<scenario>.svg` (one format per
chart, minified SVG; matplotlib; each bar the median of the rounds, its whisker their min–max, noisy bars
hatched), `environment.md` (CPU, kernel, JDK, JVM flags, wrk, commit, exact command line), the small
tables the report reads (`meta.tsv`, `servers.tsv`, `scenarios.tsv`, `measurements.tsv`, `events.tsv`,
`starts.tsv`: each start's warm-up, seconds, steady or not, why), `conformance/<row>.tsv` (every
conformance case) and `raw/` (every wrk output, check and server log, and every warm-up window in
`raw/<row>/warmup-start<K>.tsv`). Under `results/`, `raw/` and `conformance/` are kept as one archive,
`raw.tar.gz` (`python3 scripts/lib/raw_archive.py unpack <run>` to read them; the reports unpack it
themselves). A full run written under `results/` rewrites this file to show it; `--quick` runs and runs written
elsewhere leave it alone. Options and environment variables: `scripts/benchmark-servers.sh --help`.
"""


HEADLINE_SCENARIOS = ("plaintext-pipelined16", "plaintext-c256")
OTHER_RESULTS = (("ab", "A/B runs against another commit (`benchmark-servers.sh --baseline`)"),
                 ("seed", "the source documents' experiments reproduced, published figures beside ours (`reproduce-sources.sh`)"),
                 ("soak", "soak runs (`soak.sh`)"),
                 ("jmh", "JMH micro-benchmarks (`jmh.sh`)"),
                 ("fuzz", "fuzzing runs (`fuzz.sh`)"),
                 ("cluster", "instances behind nginx and HAProxy (`cluster.sh`)"),
                 ("restart", "restarts under load on a shared port (`restart-under-load.sh`)"),
                 ("websocket", "the WebSocket and server-sent-event scenarios, with the references (`benchmark-websocket.sh`)"),
                 ("websocket-idle", "memory and CPU of 10,000 idle WebSockets per server (`websocket-idle.sh`)"),
                 ("sse-idle", "memory and CPU of 10,000 idle event streams per server (`websocket-idle.sh --sse`)"))


def warmup_summary(run: Path, meta: dict) -> str:
    """A run's warm-up in a few words: "adaptive, 9 of 11 starts steady" or "fixed 2 s, not checked"."""
    starts = read_tsv(run / "starts.tsv")
    if not starts:
        return f"fixed {meta.get('warmup', '?')} s, not checked"
    steady = sum(1 for r in starts if r.get("steady") == "1")
    return f"{meta.get('warmup_mode') or starts[0].get('mode', '?')}, {steady} of {len(starts)} starts steady"


def run_rows(results: Path) -> list[str]:
    """One index row per matrix run directly under results/ (a directory with meta.tsv), newest first."""
    rows = []
    for run in sorted((d for d in results.iterdir() if (d / "meta.tsv").is_file()), reverse=True):
        meta = read_meta(run)
        servers = len(read_tsv(run / "servers.tsv")) if (run / "servers.tsv").is_file() else 0
        scenarios = len(read_tsv(run / "scenarios.tsv")) if (run / "scenarios.tsv").is_file() else 0
        shape = f"{servers} × {scenarios}, {meta.get('rounds', '?')} × {meta.get('duration', '?')} s"
        rows.append(f"| [{run.name}]({run.name}/summary.md) | {meta.get('started', '?')} | {shape} "
                    f"| {warmup_summary(run, meta)} | `{md_escape(meta.get('command', '?'))}` |")
    return rows


def headline_run(results: Path, report: Report | None) -> Report | None:
    """The run results/README.md leads with: the latest default-mode run under results/ whose starts were
    checked for steady state (starts.tsv), warmed until steady rather than for a fixed time when there is one,
    else the latest unpinned loopback default-mode run, else the run just reported."""
    adaptive, steady, plain = [], [], []
    if results.is_dir():
        for run in sorted((d for d in results.iterdir() if (d / "meta.tsv").is_file()), reverse=True):
            meta = read_meta(run)
            if meta.get("mode") != "default" or meta.get("quick") == "1":
                continue
            if (run / "starts.tsv").is_file():
                (adaptive if meta.get("warmup_mode") == "adaptive" else steady).append(run)
            elif not meta.get("pin_server") and not (meta.get("isolation") or "").startswith("netns"):
                plain.append(run)
    chosen = (adaptive or steady or plain or [None])[0]
    if chosen is None:
        return report
    if report is not None and report.run.resolve() == chosen.resolve():
        return report
    # its conformance/ (the overview's RFC 9112 and contract columns) is in its archive once committed
    with raw_archive.extracted(chosen):
        return Report(chosen)


def steady_sentence(report: Report) -> str:
    """Whether the headline's figures are of warmed-up servers, in one sentence."""
    if not report.starts:
        return (f"**Not a steady-state run:** each start was warmed up for a fixed {report.meta.get('warmup', '?')} s "
                "and nothing checked that it had settled, so the JIT-heavy rows (the references most) may still have "
                "been warming; compare with a run whose starts were checked before trusting a ratio.")
    unsteady = sorted({r["server"] for r in report.starts.values() if r.get("steady") != "1"})
    if not unsteady:
        return "Every start reached steady state before it was measured (warm-up per start in its summary.md)."
    return ("Rows marked † had not reached steady state when the warm-up cap ran out: "
            + ", ".join(unsteady) + " (warm-up per start in its summary.md).")


def written_sections(path: Path) -> str:
    """The sections of an existing results/README.md between the generated headline (its "## Latest ..." section)
    and the generated "## All runs": what a person wrote about other runs, kept when the file is rewritten."""
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8")
    start = text.find("\n## Latest ")
    end = text.find("\n## All runs")
    after = text.find("\n## ", start + 1) if start >= 0 else -1
    if start < 0 or end < 0 or after < 0 or after >= end:
        return ""
    return text[after + 1:end].rstrip("\n") + "\n"


def write_readme(path: Path, report: Report | None) -> None:
    """results/README.md: how runs are made, the headline of the latest steady-state default run (median,
    min–max, steady and correctness marks, one chart), the sections a person wrote after it (kept from the file
    as it was), and an index of every run under results/."""
    kept = written_sections(path)
    text = README_INTRO
    report = headline_run(path.parent, report)
    if report is None:
        text += "\n## Latest run\n\nNone committed yet.\n"
    else:
        rel = os.path.relpath(report.run, path.parent)
        run_id = report.meta.get("run_id", report.run.name)
        text += (f"\n## Latest default run: [{run_id}]({rel}/)\n\n"
                 f"{steady_sentence(report)} Each cell is the {median_text(report.rounds_planned)} with the lowest "
                 f"and highest round in brackets. The headline of its [summary.md]({rel}/summary.md) (every "
                 f"scenario's ranked table, CPU cost, failures and notes are there; machine and command: "
                 f"[environment.md]({rel}/environment.md)).\n\n")
        text += "\n".join(report.overview("##", spread=True)) + "\n"
        names = [sc["name"] for sc in report.scenarios]
        shown = next((n for n in HEADLINE_SCENARIOS if n in names), names[0] if names else None)
        if shown:
            text += f"\n![{shown}: req/s and requests per server CPU-second]({rel}/charts/{shown}.svg)\n"
    if kept:
        text += "\n" + kept
    rows = run_rows(path.parent)
    text += "\n## All runs\n\n"
    if rows:
        text += ("| run | started (UTC) | servers × scenarios, rounds × duration | warm-up | command |\n"
                 "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    else:
        text += "None yet.\n"
    others = [(f"{d}/", what) for d, what in OTHER_RESULTS if (path.parent / d).is_dir()]
    if (path.parent / "archived.md").is_file():
        others.append(("archived.md", "runs superseded by later ones, kept in git history and restored by "
                                      "`scripts/lib/archived.py restore` (the pages above still cite them)"))
    if others:
        text += "\nElsewhere under results/:\n\n" + "\n".join(f"- [{d}]({d}): {what}" for d, what in others) + "\n"
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def cmd_report(args) -> int:
    run = Path(args.run_dir).resolve()
    out = Path(args.out).resolve() if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    report = Report(run, out)
    report.write_csv()
    report.write_charts()
    report.write_summary()
    if args.readme:
        write_readme(Path(args.readme).resolve(), report)
    print(report.terminal_overview())
    if report.twins():
        print("\n" + "\n".join(report.baseline_lines("#")))
    violations = report.violations(args.strict)
    if violations:
        print(f"\n{len(violations)} problem(s):", file=sys.stderr)
        for v in violations:
            print(f"  {v}", file=sys.stderr)
        return 1
    return 0


def cmd_open_chart(args) -> int:
    """One percentile chart from open-load.sh output directories, each given as LABEL=DIR."""
    import charts  # matplotlib: only here and in `report`
    lines = []
    for spec in args.runs:
        label, sep, directory = spec.partition("=")
        if not sep:
            print(f"error: expected LABEL=DIR, got {spec!r}", file=sys.stderr)
            return 2
        try:
            r = parse_open_result(Path(directory))
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        if not r.percentiles:
            print(f"error: {directory}/percentiles.tsv is missing or empty", file=sys.stderr)
            return 1
        lines.append(charts.PercentileLine(f"{label} (p99 {fmt_ms(r.p99_ms)} ms, achieved {fmt_compact(r.achieved_rate)}/s)",
                                           r.percentiles, flagged=r.behind or r.errors > 0 or r.non2xx > 0))
    charts.percentile_chart(Path(args.stem), args.title, args.subtitle, lines)
    return 0


def run_label(meta: dict) -> str:
    """A short name for how a run isolated client and server: loopback, pinned, netns or both."""
    parts = ["netns" if (meta.get("isolation") or "").startswith("netns") else "loopback"]
    if meta.get("pin_server") or meta.get("pin_client"):
        parts.append(f"pinned {meta.get('pin_server') or '-'}/{meta.get('pin_client') or '-'}")
    return ", ".join(parts)


def compare_lines(reports: list[Report]) -> list[str]:
    """Rows' median req/s and rank per scenario across runs (the first is the base), with each
    later run's ratio to the base: how a change of isolation moves figures and the ranking."""
    base = reports[0]
    labels = [run_label(r.meta) for r in reports]
    lines = ["Runs, the first being the base of the ratios. Each figure is the row's req/s, the "
             + "; ".join(sorted({median_text(r.rounds_planned) for r in reports})) + " of its run. ≈ = noisy: the "
             f"{NOISY_RULE} (in that run, or for a ratio in either run), so the figure or ratio is not a finding on "
             "its own. † = not steady (that start's warm-up did not settle).", ""]
    lines += [f"{i + 1}. [{r.run.name}]({os.path.relpath(r.run, reports[0].run.parent)}/summary.md): {label}"
              for i, (r, label) in enumerate(zip(reports, labels))]
    lines.append("")
    for sc in base.scenarios:
        name = sc["name"]
        if not all(any(o["name"] == name for o in r.scenarios) for r in reports[1:]):
            continue
        ranks = []
        for r in reports:
            ranked = [c.server for c in r.ranked(name) if c.rps is not None]
            ranks.append({server: i + 1 for i, server in enumerate(ranked)})
        rows = [s["name"] for s in base.servers if all((s["name"], name) in r.cells for r in reports)]
        head = "| row | " + " | ".join(f"run {i + 1} req/s (rank)" for i in range(len(reports)))
        head += "".join(f" | run {i + 1} ÷ run 1" for i in range(1, len(reports))) + " |"
        lines += [f"### {name}", "", head, "|---|" + "---:|" * (2 * len(reports) - 1)]
        for row in sorted(rows, key=lambda n: ranks[0].get(n, 10 ** 6)):
            cells = [r.cells[(row, name)] for r in reports]
            figures = [f"{fmt_int(c.rps)} ({ranks[i].get(row, '–')})" + (" ≈" if c.noisy else "")
                       + reports[i].steady_mark(c) if c.rps is not None else "–"
                       for i, c in enumerate(cells)]
            ratios = [f"{c.rps / cells[0].rps:.2f}" + (" ≈" if c.noisy or cells[0].noisy else "")
                      if c.rps and cells[0].rps else "" for c in cells[1:]]
            lines.append(f"| {row} | " + " | ".join(figures + ratios) + " |")
        lines.append("")
    return lines


def cmd_compare(args) -> int:
    reports = [Report(Path(d).resolve()) for d in args.run_dirs]
    text = "# Isolation compared\n\n" + "\n".join(compare_lines(reports)) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


def ratio_check_lines(a: Report, b: Report, tolerance: float = 0.15) -> list[str]:
    """Whether two runs of the same rows agree on every ratio a reader would act on: each non-reference row's
    req/s divided by each reference row's, per scenario both runs have, run B's ratio over run A's. A pair
    agrees when that quotient is within `tolerance` of 1; a pair with a noisy cell in either run is counted
    apart, since its disagreement may be the noise."""
    pairs = []  # (scenario, row, reference, ratio a, ratio b, quotient, noisy)
    for sc in a.scenarios:
        name = sc["name"]
        if not any(o["name"] == name for o in b.scenarios):
            continue
        rows = [s["name"] for s in a.servers if s["name"] not in a.reference]
        for row in rows:
            for ref in sorted(a.reference):
                cells = [r.cells.get((n, name)) for r in (a, b) for n in (row, ref)]
                if any(c is None or not c.rps for c in cells):
                    continue
                ra, rb = cells[0].rps / cells[1].rps, cells[2].rps / cells[3].rps
                pairs.append((name, row, ref, ra, rb, rb / ra, any(c.noisy for c in cells)))
    within = [p for p in pairs if abs(p[5] - 1) <= tolerance]
    clean_out = [p for p in pairs if abs(p[5] - 1) > tolerance and not p[6]]
    noisy_out = [p for p in pairs if abs(p[5] - 1) > tolerance and p[6]]
    pct = f"{tolerance * 100:.0f}%"
    lines = [f"Run A: [{a.run.name}]({os.path.relpath(a.run, a.run.parent)}/summary.md) ({run_label(a.meta)}, "
             f"warm-up {warmup_label(a)}); run B: [{b.run.name}]({os.path.relpath(b.run, a.run.parent)}/summary.md) "
             f"({run_label(b.meta)}, warm-up {warmup_label(b)}).", "",
             f"Each pair is a Spindle row's req/s divided by a reference row's in one scenario (the median of each "
             f"run's rounds), in run A and in run B; B ÷ A is how far run B moves that ratio. ≈ = a cell of the pair "
             f"is noisy in either run (its rounds spread over 20% of the median).", "",
             f"- {len(pairs)} pairs; **{len(within)} agree within {pct}**; {len(clean_out)} differ by more with no "
             f"noisy cell; {len(noisy_out)} differ by more where a cell is noisy.", ""]
    if clean_out or noisy_out:
        lines += ["Pairs beyond the tolerance:", "",
                  "| scenario | row | reference | ratio A | ratio B | B ÷ A |", "|---|---|---|---:|---:|---:|"]
        for name, row, ref, ra, rb, q, noisy in sorted(clean_out + noisy_out, key=lambda p: -abs(p[5] - 1)):
            lines.append(f"| {name} | {row} | {ref} | {ra:.2f} | {rb:.2f} | {q:.2f}{' ≈' if noisy else ''} |")
        lines.append("")
    lines += ["All pairs:", "", "| scenario | row | reference | ratio A | ratio B | B ÷ A |", "|---|---|---|---:|---:|---:|"]
    for name, row, ref, ra, rb, q, noisy in pairs:
        lines.append(f"| {name} | {row} | {ref} | {ra:.2f} | {rb:.2f} | {q:.2f}{' ≈' if noisy else ''} |")
    return lines


def warmup_label(report: Report) -> str:
    mode = report.meta.get("warmup_mode")
    if mode == "adaptive":
        return f"until steady, capped at {report.meta.get('warmup_cap', '?')} s"
    if mode == "fixed":
        return f"fixed {report.meta.get('warmup', '?')} s"
    return f"{report.meta.get('warmup', '?')} s, not checked"


def cmd_ratio_check(args) -> int:
    a, b = Report(Path(args.run_a).resolve()), Report(Path(args.run_b).resolve())
    text = "# Ratios to the references, two runs compared\n\n" + "\n".join(ratio_check_lines(a, b, args.tolerance)) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


def cmd_readme(args) -> int:
    write_readme(Path(args.path), None)
    return 0



def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check", help="check every benchmark route of a running server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--timeout", type=float, default=15.0)
    p.add_argument("--remote", action="store_true",
                   help="also check /remote/10 and /remote-blocking/10 (the server was given a downstream)")
    p.add_argument("--remote-tls", action="store_true",
                   help="also check /remote-tls/100 (the server was given a TLS downstream); a 404 is absent")
    p.add_argument("--remote-h2", action="store_true",
                   help="also check /remote-h2/100 (the TLS downstream called over HTTP/2); a 404 is absent")
    p.add_argument("--multipart", type=int, action="append", metavar="SIZE",
                   help="also POST /multipart the wrk body with a file part of SIZE bytes (repeatable)")
    p.add_argument("--tls", action="store_true",
                   help="over HTTPS (no certificate verification); exit 3 if the port speaks plain HTTP")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("parse", help="parse one wrk output")
    p.add_argument("file")
    p.set_defaults(fn=cmd_parse)
    p = sub.add_parser("h2load-latency", help="percentiles of h2load's --log-file, as the line parse reads")
    p.add_argument("file")
    p.add_argument("--window", action="store_true",
                   help="also the fixed window's line of a waiting scenario (h2load_window_line)")
    p.set_defaults(fn=cmd_h2load_latency)
    p = sub.add_parser("report", help="write summary.csv, summary.md and charts for a run directory")
    p.add_argument("run_dir")
    p.add_argument("--strict", action="store_true",
                   help="socket errors or non-2xx in a non-blocking scenario are failures too")
    p.add_argument("--readme", help="also rewrite this results/README.md to show the run")
    p.add_argument("--out", help="write summary.md, summary.csv and charts/ here instead of into RUN_DIR "
                                 "(regenerate a committed run's report without touching it)")
    p.set_defaults(fn=cmd_report)
    p = sub.add_parser("open-chart", help="percentile chart (SVG+PNG) of open-load.sh runs given as LABEL=DIR")
    p.add_argument("stem", help="output path without extension")
    p.add_argument("runs", nargs="+", metavar="LABEL=DIR")
    p.add_argument("--title", required=True)
    p.add_argument("--subtitle", default="")
    p.set_defaults(fn=cmd_open_chart)
    p = sub.add_parser("compare", help="rows' req/s and ranks per scenario across runs (e.g. loopback, pinned, netns)")
    p.add_argument("run_dirs", nargs="+")
    p.add_argument("--out", help="write the markdown here instead of stdout")
    p.set_defaults(fn=cmd_compare)
    p = sub.add_parser("ratio-check", help="do two runs of the same rows agree on every row-to-reference ratio?")
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.add_argument("--tolerance", type=float, default=0.15, help="agreement bound on B ÷ A - 1 (default 0.15)")
    p.add_argument("--out", help="write the markdown here instead of stdout")
    p.set_defaults(fn=cmd_ratio_check)
    p = sub.add_parser("readme", help="write the results/README.md placeholder")
    p.add_argument("path")
    p.set_defaults(fn=cmd_readme)
    args = ap.parse_args(argv)
    runs = [getattr(args, a) for a in ("run_dir", "run_a", "run_b") if getattr(args, a, None)]
    runs += list(getattr(args, "run_dirs", None) or [])
    runs += [r.partition("=")[2] for r in (getattr(args, "runs", None) or [])]
    # a committed run keeps raw/ and conformance/ in raw.tar.gz: unpacked while the command reads it
    with contextlib.ExitStack() as stack:
        for run in runs:
            stack.enter_context(raw_archive.extracted(Path(run)))
        return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
