# SPDX-License-Identifier: Apache-2.0
"""Tests of hostile_memory.py's clients and report (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
The exchanges run against tiny servers on 127.0.0.1 that misbehave on purpose.
"""

from __future__ import annotations

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
    def launch(self, d: Path, err: str, cpu: float, health_failed: int = 0) -> Path:
        d.mkdir(parents=True)
        (d / "launch.tsv").write_text("started\tyes\nstop\tSIGTERM at the end: exited with status 143 within 15s\n")
        (d / "server.out").write_text("X listening on 127.0.0.1:1\n")
        (d / "server.err").write_text(err)
        (d / "gc.log").write_text(GC_LOG)
        phase = {"requests": 8, "answers": {"413": 8}, "failed": 0, "health": {"probes": 5, "failed": 0, "max_ms": 3.0}}
        client = {"phases": {"oversized": phase}, "health": {"probes": 20, "failed": health_failed, "max_ms": 9.0},
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
