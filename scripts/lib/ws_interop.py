# SPDX-License-Identifier: Apache-2.0
"""WebSocket interop client for the benchmark app's /ws/echo (scripts/websocket-interop.sh).

    python3 ws_interop.py <port>

Through the `websockets` library (Debian's python3-websockets): an echo of text and binary messages
checked byte for byte, a ping answered by its pong, permessage-deflate agreed on (RFC 7692), and a
close with 1000 answered with 1000. On raw sockets, with frames masked here: a close with 1000 after
which the server must end the TCP connection itself, and a text frame of invalid UTF-8, which the
server must close with 1007. One line per case on stdout (ok/FAIL), exit 0 when all pass, 1 if not.
Bounded: the whole run gives up after DEADLINE seconds.
"""

import asyncio
import base64
import os
import socket
import struct
import sys
import time

import websockets

DEADLINE = 28.0
IO_TIMEOUT = 10.0
MAX_SIZE = 16 << 20


def texts():
    big = ("interop \u00e9\u2603\U0001F600 " * 4096)[: 64 * 1024]
    return [("empty", ""), ("ascii", "Hello, World!"), ("utf-8", "h\u00e9llo \u2603 \u4e16\u754c \U0001F600"),
            ("64KiB", big)]


def binaries():
    return [(f"{n}B", os.urandom(n)) for n in (0, 125, 126, 65536, 1 << 20)]


class Report:
    def __init__(self):
        self.failed = 0

    def case(self, name, ok, detail=""):
        if not ok:
            self.failed += 1
        print(f"  {'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def response_headers(ws):
    # websockets before 14 keeps them on the protocol, the newer implementation on its response
    headers = getattr(ws, "response_headers", None)
    if headers is None:
        headers = ws.response.headers
    return headers


async def library_cases(url, report):
    async with websockets.connect(url, compression="deflate", max_size=MAX_SIZE, ping_interval=None,
                                  open_timeout=IO_TIMEOUT, close_timeout=IO_TIMEOUT) as ws:
        ext = response_headers(ws).get("Sec-WebSocket-Extensions", "")
        report.case("permessage-deflate negotiated", "permessage-deflate" in ext, f"Sec-WebSocket-Extensions: {ext!r}")
        for name, message in texts() + binaries():
            kind = "text" if isinstance(message, str) else "binary"
            await ws.send(message)
            echo = await asyncio.wait_for(ws.recv(), IO_TIMEOUT)
            same = type(echo) is type(message) and echo == message
            report.case(f"{kind} {name} echoed", same,
                        "" if same else f"got {type(echo).__name__} of length {len(echo)}, sent {len(message)}")
        payload = os.urandom(16)
        waiter = await ws.ping(payload)
        try:
            await asyncio.wait_for(waiter, IO_TIMEOUT)
            report.case("ping answered by its pong", True)
        except asyncio.TimeoutError:
            report.case("ping answered by its pong", False, f"no pong within {IO_TIMEOUT} s")
        await ws.close(1000, "bye")
        report.case("close 1000 answered with 1000", ws.close_code == 1000,
                    f"server's close code {ws.close_code}, reason {ws.close_reason!r}")


def handshake(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=IO_TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError(f"the connection ended during the handshake: {head!r}")
        head += chunk
    status, _, rest = head.partition(b"\r\n")
    if b" 101 " not in status + b" ":
        raise ConnectionError(f"handshake answered {status!r}")
    return sock, rest.partition(b"\r\n\r\n")[2]


def masked(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_until_close(sock, buffered):
    """The server's close frame's code (None if it sent none), and whether it then ended TCP."""
    data = buffered
    code = None
    ended = False
    deadline = time.monotonic() + IO_TIMEOUT
    while time.monotonic() < deadline:
        while code is None and len(data) >= 2:
            opcode, n = data[0] & 0x0F, data[1] & 0x7F
            at = 2
            if n == 126:
                if len(data) < 4:
                    break
                n, at = struct.unpack("!H", data[2:4])[0], 4
            elif n == 127:
                if len(data) < 10:
                    break
                n, at = struct.unpack("!Q", data[2:10])[0], 10
            if len(data) < at + n:
                break
            if opcode == 0x8:
                code = struct.unpack("!H", data[at:at + 2])[0] if n >= 2 else 1005
            data = data[at + n:]
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            ended = True
            break
        if not chunk:
            ended = True
            break
        data += chunk
    return code, ended


def raw_close_case(port, report):
    sock, rest = handshake(port)
    with sock:
        sock.sendall(masked(0x8, struct.pack("!H", 1000) + b"bye"))
        code, ended = read_until_close(sock, rest)
    report.case("raw close 1000: answered with 1000", code == 1000, f"server's close code {code}")
    report.case("raw close 1000: the server ended the TCP connection", ended,
                "" if ended else f"still open {IO_TIMEOUT} s after the closing handshake")


def invalid_utf8_case(port, report):
    sock, rest = handshake(port)
    with sock:
        # a lone continuation byte, then a UTF-16 surrogate encoded as UTF-8 (RFC 3629 forbids both)
        sock.sendall(masked(0x1, b"ok \x80 \xed\xa0\x80"))
        code, ended = read_until_close(sock, rest)
    report.case("invalid UTF-8 text: closed with 1007", code == 1007, f"server's close code {code}")
    report.case("invalid UTF-8 text: the server ended the TCP connection", ended)


async def main(port):
    report = Report()
    url = f"ws://127.0.0.1:{port}/ws/echo"
    print(f"python websockets {websockets.__version__} against {url}", flush=True)
    try:
        await asyncio.wait_for(library_cases(url, report), DEADLINE / 2)
    except Exception as e:  # a failure of the connection is a failed case, reported with what raised
        report.case("library connection", False, f"{type(e).__name__}: {e}")
    for case in (raw_close_case, invalid_utf8_case):
        try:
            await asyncio.wait_for(asyncio.to_thread(case, port, report), DEADLINE / 4)
        except Exception as e:
            report.case(case.__name__, False, f"{type(e).__name__}: {e}")
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) != 1 or not args[0].isdigit():
        print("usage: ws_interop.py <port>", file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(int(args[0]))))
