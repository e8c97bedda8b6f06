# SPDX-License-Identifier: Apache-2.0
"""Tests of hostile_memory.py's clients and report (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
The exchanges run against tiny servers on 127.0.0.1 that misbehave on purpose.
"""

from __future__ import annotations

import csv
import hashlib
import json
import socket
import struct
import tempfile
import threading
import unittest
from pathlib import Path

import hostile_memory as hm

AB_DONE = """Benchmarking 127.0.0.1 (be patient).....done

Server Software:        spindle
Complete requests:      2000
Failed requests:        40
   (Connect: 0, Receive: 3, Length: 37, Exceptions: 0)
Non-2xx responses:      37
Requests per second:    4521.33 [#/sec] (mean)
"""
AB_GAVE_UP = """Benchmarking 127.0.0.1 (be patient)...apr_pollset_poll: The timeout specified has expired (70007)
Total of 19244 requests completed
"""
AB_GAVE_UP_AT_ONCE = "Benchmarking 127.0.0.1 (be patient)...apr_pollset_poll: The timeout specified has expired (70007)\n"

GC_LOG = """[0.010s][info][gc] Using Parallel
[1.2s][info][gc] GC(0) Pause Young (Allocation Failure) 24M->3M(92M) 4.1ms
[2.5s][info][gc] GC(1) Pause Full (Ergonomics) 88M->61M(92M) 70.2ms
[2.9s][info][gc] GC(2) Pause Young (Allocation Failure) 40M->39M(85M) 1.0ms
"""


class FakeServer:
    """Accepts one connection at a time and hands it to `behaviour(conn)` on its own thread."""

    def __init__(self, behaviour) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.behaviour = behaviour
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            self.behaviour(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.listener.close()


def read_head(conn: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            break
        data += more
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def refuse_413_then_reset(conn: socket.socket) -> None:
    """What a server does with a body over its limit: 413 and a close with the upload unread,
    which the kernel turns into a reset."""
    read_head(conn)
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def close_without_status(conn: socket.socket) -> None:
    read_head(conn)
    conn.recv(65536)


def echo(conn: socket.socket, short_by: int = 0) -> None:
    head, body = read_head(conn)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % length + body[:length - short_by])


def never_answer(conn: socket.socket) -> None:
    read_head(conn)
    threading.Event().wait(3)


def drop_until_quiet(conn: socket.socket, quiet: float = 0.3) -> None:
    """Reads and drops what the client still sends until nothing came for `quiet` seconds or it
    closed: a lingering close's input side."""
    conn.settimeout(quiet)
    try:
        while conn.recv(1 << 20):
            pass
    except (socket.timeout, OSError):
        pass


def refuse_and_linger(status: bytes):
    """The status and Connection: close, the output shut, what still arrives dropped until the
    client goes quiet, then an orderly close: the servers' lingering close."""
    def behaviour(conn: socket.socket) -> None:
        read_head(conn)
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope")
        conn.shutdown(socket.SHUT_WR)
        drop_until_quiet(conn)
    return behaviour


def refuse_then_reset_under_the_body(conn: socket.socket) -> None:
    """413 and part of its body; once the client has gone quiet, a reset before the rest: the
    client has read its status, and the reset comes after it."""
    read_head(conn)
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 100\r\nConnection: close\r\n\r\nfirst ten.")
    drop_until_quiet(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def reset_without_status(conn: socket.socket) -> None:
    read_head(conn)
    conn.recv(65536)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def shut_without_status(conn: socket.socket) -> None:
    read_head(conn)
    conn.shutdown(socket.SHUT_WR)
    drop_until_quiet(conn)


class ExchangeTest(unittest.TestCase):
    CASES = [
        # behaviour, body length, deadline s, expected outcome, answered?
        ("413 then a reset mid-upload", refuse_413_then_reset, 50 * hm.MB, 10.0, "413", True),
        ("closed before a status line", close_without_status, 50 * hm.MB, 10.0, ("closed", "reset"), False),
        ("whole echo", echo, 100_000, 10.0, "200", True),
        ("200 with a cut echo", lambda c: echo(c, short_by=10), 100_000, 2.0, "bad_2xx", False),
        ("no answer", never_answer, 100, 1.0, "timeout", False),
    ]

    def test_outcomes(self) -> None:
        for name, behaviour, length, deadline, expected, is_answer in self.CASES:
            with self.subTest(name):
                server = FakeServer(behaviour)
                try:
                    result = hm.post(server.port, deadline, length)
                finally:
                    server.close()
                wanted = expected if isinstance(expected, tuple) else (expected,)
                self.assertIn(result["outcome"], wanted, result)
                self.assertEqual(hm.answered(result["outcome"]), is_answer)

    def test_chunked_upload_refused_is_answered(self) -> None:
        server = FakeServer(refuse_413_then_reset)
        try:
            result = hm.post(server.port, 10.0, 50 * hm.MB, chunked=True)
        finally:
            server.close()
        self.assertEqual(result["outcome"], "413", result)
        self.assertLess(result["sent"], 50 * hm.MB)


class RefusedUploadTest(unittest.TestCase):
    CASES = [
        # name, behaviour, deadline s, outcome, status read, reset before the status?, end after the status
        ("413 and a lingering close", refuse_and_linger(b"413 Payload Too Large"), 10.0, "413", 413, False, "fin"),
        ("503 where a 413 was due", refuse_and_linger(b"503 Service Unavailable"), 10.0, "503", 503, False, "fin"),
        ("413, then a reset under its body", refuse_then_reset_under_the_body, 10.0, "413", 413, False, "reset"),
        ("a reset and no status", reset_without_status, 10.0, "reset", None, True, None),
        ("closed without a status", shut_without_status, 10.0, "closed", None, False, None),
        ("no answer", never_answer, 1.0, "timeout", None, False, None),
    ]

    def test_outcomes(self) -> None:
        for name, behaviour, deadline, outcome, status, reset_before, end in self.CASES:
            for chunked in (False, True):
                with self.subTest(name, chunked=chunked):
                    server = FakeServer(behaviour)
                    try:
                        r = hm.refused_upload(server.port, deadline, 50 * hm.MB, chunked)
                    finally:
                        server.close()
                    self.assertEqual(r["outcome"], outcome, r)
                    self.assertEqual(r["status"], status, r)
                    self.assertEqual(bool(r["reset_before_status"]), reset_before, r)
                    self.assertEqual(r["end"], end, r)
                    self.assertEqual(r["kind"], "chunked" if chunked else "content-length")
                    self.assertLess(r["sent"], 50 * hm.MB, "the upload stops once the server answers or closes")
                    if status is not None:
                        self.assertLessEqual(r["to_status_s"], r["seconds"])

    @staticmethod
    def row(outcome: str, status: int | None, reset_before: str | None = None, end: str | None = "fin",
            kind: str = "chunked", to_status: float | None = 0.1) -> dict:
        return {"kind": kind, "outcome": outcome, "status": status, "reset_before_status": reset_before,
                "end": end, "to_status_s": to_status, "sent": 4 * hm.MB, "seconds": 0.2}

    def test_tally(self) -> None:
        row = self.row
        cases = [
            # name, rows, failed, 413s read, resets before the status, resets after it
            ("every upload read its 413", [row("413", 413), row("413", 413, kind="content-length")], 0, 2, 0, 0),
            ("a reset after the status is allowed, and counted", [row("413", 413), row("413", 413, end="reset")], 0, 2, 0, 1),
            ("a reset while sending, the 413 read after it", [row("413", 413), row("reset", 413, "EPIPE while sending")], 1, 1, 1, 0),
            ("a reset and no status", [row("reset", None, "ECONNRESET before the status line", None, to_status=None)], 1, 0, 1, 0),
            ("another status", [row("413", 413), row("503", 503)], 1, 1, 0, 0),
            ("a timeout", [row("timeout", None, end=None, to_status=None)], 1, 0, 0, 0),
        ]
        for name, rows, failed, read_413, before, after in cases:
            with self.subTest(name):
                t = hm.tally("uploads", rows)
                u = t["uploads"]
                self.assertEqual((t["failed"], u["read_413"], u["resets_before_status"], u["resets_after_status"]),
                                 (failed, read_413, before, after), t)
                self.assertEqual(len(t["failure_examples"]), failed)
                self.assertEqual(sum(k["uploads"] for k in u["by_kind"].values()), len(rows))

    def test_tally_times(self) -> None:
        rows = [self.row("413", 413, to_status=t) for t in (0.3, 0.1, 0.2)] + [self.row("timeout", None, to_status=None)]
        u = hm.upload_figures(rows)
        self.assertEqual((u["to_status_p50_s"], u["to_status_max_s"]), (0.2, 0.3))

    def test_phase_mixes_framings(self) -> None:
        seen = []
        real = hm.refused_upload
        hm.refused_upload = lambda port, deadline, length, chunked: seen.append(chunked) or {}
        try:
            hm.phase_uploads(1, {"uploads": 10, "length": 1, "concurrency": 4, "deadline": 1.0}, Path("."))
        finally:
            hm.refused_upload = real
        self.assertEqual(sorted(seen), [False] * 5 + [True] * 5)


def read_body(conn: socket.socket, head: bytes, rest: bytes) -> bytes:
    """The request body after `head`: by its Content-Length, or de-chunked."""
    lines = head.split(b"\r\n")
    length = next((int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length")), None)
    if length is not None:
        while len(rest) < length:
            rest += conn.recv(1 << 20)
        return rest[:length]
    body = bytearray()
    while True:
        while b"\r\n" not in rest:
            rest += conn.recv(1 << 20)
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        while len(rest) < size + 2:
            rest += conn.recv(1 << 20)
        body += rest[:size]
        rest = rest[size + 2:]
        if size == 0:
            return bytes(body)


def store_multipart(wrong_digest: bool = False):
    """A /multipart route in miniature: the file part's size and SHA-256 answered as JSON."""
    def behaviour(conn: socket.socket) -> None:
        head, rest = read_head(conn)
        body = read_body(conn, head, rest)
        delimiter = b"\r\n--" + hm.MULTIPART_BOUNDARY.encode("ascii")
        parts = (b"\r\n" + body).split(delimiter)[1:-1]
        fields, files = {}, []
        for part in parts:
            headers, _, content = part[2:].partition(b"\r\n\r\n")
            name = headers.split(b'name="')[1].split(b'"')[0].decode()
            if b"filename=" in headers:
                digest = hashlib.sha256(content + (b"x" if wrong_digest else b"")).hexdigest()
                files.append({"name": name, "filename": "hostile.bin", "size": len(content), "sha256": digest})
            else:
                fields[name] = content.decode()
        answer = json.dumps({"fields": fields, "files": files}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(answer) + answer)
    return behaviour


class MultipartUploadTest(unittest.TestCase):
    LENGTH = 3 * hm.SEND_PIECE + 12345

    def test_outcomes(self) -> None:
        digest = hm.multipart_digest(self.LENGTH)
        cases = [
            # name, behaviour, outcome
            ("the file stored and digested", store_multipart(), "200"),
            ("another digest", store_multipart(wrong_digest=True), "bad_2xx"),
            ("refused", refuse_and_linger(b"413 Payload Too Large"), "413"),
            ("closed without a status", shut_without_status, "closed"),
        ]
        for name, behaviour, outcome in cases:
            for chunked in (False, True):
                with self.subTest(name, chunked=chunked):
                    server = FakeServer(behaviour)
                    try:
                        r = hm.multipart_upload(server.port, 10.0, self.LENGTH, chunked, digest)
                    finally:
                        server.close()
                    self.assertEqual(r["outcome"], outcome, r)
                    self.assertEqual(r["kind"], "chunked" if chunked else "content-length")

    def test_digest(self) -> None:
        piece = hm.PIECE
        self.assertEqual(hm.multipart_digest(len(piece) * 2 + 5), hashlib.sha256(piece + piece + piece[:5]).hexdigest())

    def test_only_the_stored_file_passes(self) -> None:
        rows = [{"kind": "content-length", "outcome": "200", "seconds": 1.0, "sent": 1},
                {"kind": "chunked", "outcome": "413", "seconds": 1.0, "sent": 1}]
        t = hm.tally("multipart", rows)
        self.assertEqual((t["failed"], len(t["failure_examples"]), len(t["multipart"])), (1, 1, 2), t)


class ParseTest(unittest.TestCase):
    def test_ab(self) -> None:
        cases = [
            (AB_DONE, 2000, {"2xx": 1960, "non-2xx": 37, "ab_failed": 3}, None),
            (AB_GAVE_UP, 20000, {"completed_before_ab_gave_up": 19244, "not_completed": 756}, "apr_pollset_poll"),
            (AB_GAVE_UP_AT_ONCE, 20000, {"completed_before_ab_gave_up": 0, "not_completed": 20000}, "apr_pollset_poll"),
        ]
        for text, requests, counts, aborted in cases:
            with self.subTest(counts=counts):
                row = hm.parse_ab(text, requests)
                self.assertEqual({k: v for k, v in row["counts"].items() if v or k in counts}, counts)
                if aborted:
                    self.assertIn(aborted, row["aborted"])
                else:
                    self.assertNotIn("aborted", row)
        failed = hm.tally("churn", [dict(hm.parse_ab(AB_GAVE_UP, 20000), kind="ab round 1", ab_rc=1)])["failed"]
        self.assertEqual(failed, 756)

    def test_gc_peak(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "gc.log"
            path.write_text(GC_LOG, encoding="utf-8")
            self.assertEqual(hm.gc_peak(path), (88, 92, 1))


class VerdictTest(unittest.TestCase):
    def launch(self, d: Path, err: str, cpu: float, health_failed: int = 0, phases: dict | None = None) -> Path:
        d.mkdir(parents=True)
        (d / "launch.tsv").write_text("started\tyes\nstop\tSIGTERM at the end: exited with status 143 within 15s\n")
        (d / "server.out").write_text("X listening on 127.0.0.1:1\n")
        (d / "server.err").write_text(err)
        (d / "gc.log").write_text(GC_LOG)
        phase = {"requests": 8, "answers": {"413": 8}, "failed": 0, "health": {"probes": 5, "failed": 0, "max_ms": 3.0}}
        client = {"phases": phases or {"oversized": phase}, "health": {"probes": 20, "failed": health_failed, "max_ms": 9.0},
                  "cpu_after_pct": cpu, "alive_at_end": True}
        (d / "client.json").write_text(json.dumps(client))
        return d

    def test_rules(self) -> None:
        cases = [
            ("clean", "", 0.4, 0, True),
            ("an OOM logged", "Exception in thread \"x\" java.lang.OutOfMemoryError: Java heap space\n", 0.4, 0, False),
            ("busy after the load", "", 60.0, 0, False),
            ("a slow health probe", "", 0.4, 1, False),
        ]
        for name, err, cpu, health_failed, passes in cases:
            with self.subTest(name), tempfile.TemporaryDirectory() as tmp:
                judged = hm.judge_launch(self.launch(Path(tmp) / "default", err, cpu, health_failed))
                self.assertEqual(judged["pass"], passes, judged["reasons"])

    @staticmethod
    def uploads_phase(rows: list[dict]) -> dict:
        return {**hm.tally("uploads", rows), "health": {"probes": 5, "failed": 0, "max_ms": 3.0}}

    def test_uploads_rule(self) -> None:
        row = RefusedUploadTest.row
        cases = [
            ("every 413 read", [row("413", 413)] * 4, True),
            ("a reset after a 413", [row("413", 413)] * 3 + [row("413", 413, end="reset")], True),
            ("a reset before a 413", [row("413", 413)] * 3 + [row("reset", 413, "ECONNRESET while sending")], False),
            ("a 503", [row("413", 413)] * 3 + [row("503", 503)], False),
        ]
        for name, rows, passes in cases:
            for server in ("MultiLoopServer", "SingleThreadServer"):   # one at a time or not, the uploads are judged
                with self.subTest(name, server=server), tempfile.TemporaryDirectory() as tmp:
                    judged = hm.judge_launch(self.launch(Path(tmp) / server / "uploads", "", 0.4,
                                                         phases={"uploads": self.uploads_phase(rows)}))
                    self.assertEqual(judged["pass"], passes, judged["reasons"])

    def test_uploads_in_the_summary(self) -> None:
        row = RefusedUploadTest.row
        rows = ([row("413", 413, kind="content-length", to_status=0.05)] * 2 + [row("413", 413, to_status=0.25)]
                + [row("413", 413, end="reset", to_status=0.5)])
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            (run / "meta.tsv").write_text("servers\tA\nquick\t0\n")
            self.launch(run / "raw" / "A" / "uploads", "", 0.4, phases={"uploads": self.uploads_phase(rows)})
            self.assertEqual(hm.cmd_report(type("Args", (), {"run_dir": str(run)})), 0)
            with open(run / "summary.tsv", encoding="utf-8") as f:
                tsv = {(r["launch"], r["phase"]): r for r in csv.DictReader(f, delimiter="\t")}
            got = tsv[("uploads", "uploads")]
            self.assertEqual([got[c] for c in hm.UPLOAD_COLS], ["4", "0", "1", "0.25", "0.5"])
            self.assertEqual(tsv[("uploads", "all")]["uploads_read_413"], "")
            md = (run / "summary.md").read_text()
            self.assertIn("| A | uploads | all | 4 | 4 | 0 | 1 | 413 × 4 | fin × 3, reset × 1 | 0.25 s / 0.5 s | 4.0 MB |", md)
            self.assertIn("| A | uploads | chunked | 2 | 2 | 0 | 1 |", md)
            self.assertIn("| A | uploads | content-length | 2 | 2 | 0 | 0 |", md)

    def test_one_connection_at_a_time(self) -> None:
        # SingleThreadServer: slow health probes are shown, not judged; an OOM still fails it
        for err, passes in (("", True), ("java.lang.OutOfMemoryError: Java heap space\n", False)):
            with self.subTest(passes=passes), tempfile.TemporaryDirectory() as tmp:
                judged = hm.judge_launch(self.launch(Path(tmp) / "SingleThreadServer" / "default", err, 0.4, 3))
                self.assertEqual(judged["pass"], passes, judged["reasons"])
                self.assertTrue(any(n.startswith("health: 3 of 20") for n in judged["notes"]), judged["notes"])

    def test_report_exit_status(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            (run / "meta.tsv").write_text("servers\tA,B\nquick\t1\n")
            self.launch(run / "raw" / "A" / "default", "", 0.4)
            self.assertEqual(hm.cmd_report(type("Args", (), {"run_dir": str(run)})), 1)   # B has no results
            self.assertIn("**B**: no results", (run / "summary.md").read_text())
            (run / "meta.tsv").write_text("servers\tA\nquick\t1\n")
            self.assertEqual(hm.cmd_report(type("Args", (), {"run_dir": str(run)})), 0)
            self.assertTrue((run / "summary.tsv").read_text().startswith("server\tlaunch\tphase"))


if __name__ == "__main__":
    unittest.main()
