# SPDX-License-Identifier: Apache-2.0
"""WebSocket over HTTP/2 (RFC 8441) against a Spindle launcher's /ws/echo, with the python h2 library
(Debian python3-h2) as the HTTP/2 client and RFC 6455 frames written here: h2c by prior knowledge,
the server's SETTINGS_ENABLE_CONNECT_PROTOCOL, two sockets on one connection, a text and a 200 KB
binary echo (more than the stream windows, so flow control works both ways), the closing handshake
ending its stream while the other socket and a plain GET still work.

Usage: ws_h2_interop.py PORT. Prints "  ok <case>" or "  FAIL <case>: <why>"; exits 1 on a failure.
"""
import os
import socket
import struct
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings

TIMEOUT = 10


class Peer:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.flush()
        self.data = {}
        self.ended = set()
        self.reset = {}
        self.heads = {}
        self.settings_seen = False

    def flush(self):
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def pump(self, until):
        while not until():
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the server closed the connection")
            for event in self.conn.receive_data(chunk):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    self.settings_seen = True
                elif isinstance(event, h2.events.ResponseReceived):
                    self.heads[event.stream_id] = dict(event.headers)
                elif isinstance(event, h2.events.DataReceived):
                    self.data.setdefault(event.stream_id, bytearray()).extend(event.data)
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    self.ended.add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    self.reset[event.stream_id] = event.error_code
                    # after its END_STREAM a server may end the rest of the request with NO_ERROR (RFC 9113 8.1)
                    if event.error_code != 0 or event.stream_id not in self.ended:
                        raise AssertionError(f"stream {event.stream_id} reset ({event.error_code})")
                elif isinstance(event, h2.events.ConnectionTerminated):
                    raise AssertionError(f"GOAWAY ({event.error_code}): {event.additional_data}")
            self.flush()

    def open(self, path):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "http"),
                                        (":path", path), (":authority", "127.0.0.1"), ("sec-websocket-version", "13")])
        self.flush()
        self.pump(lambda: stream in self.heads)
        return stream

    def send(self, stream, data):
        # as the windows allow: a frame larger than them waits for the server's WINDOW_UPDATEs
        view = memoryview(data)
        while view:
            window = self.conn.local_flow_control_window(stream)
            if window == 0:
                self.pump(lambda: self.conn.local_flow_control_window(stream) > 0)
                continue
            n = min(window, self.conn.max_outbound_frame_size, len(view))
            self.conn.send_data(stream, view[:n].tobytes())
            view = view[n:]
            self.flush()

    def frame(self, stream):
        """The next whole server frame on the stream: (opcode, payload)."""
        def complete():
            b = self.data.get(stream, b"")
            if len(b) < 2:
                return None
            if b[1] & 0x80:
                raise AssertionError("a server frame is masked")
            length, at = b[1] & 0x7F, 2
            if length == 126:
                if len(b) < 4:
                    return None
                length, at = struct.unpack(">H", bytes(b[2:4]))[0], 4
            elif length == 127:
                if len(b) < 10:
                    return None
                length, at = struct.unpack(">Q", bytes(b[2:10]))[0], 10
            if len(b) < at + length:
                return None
            return at, length
        self.pump(lambda: complete() is not None or stream in self.ended)
        found = complete()
        if found is None:
            raise AssertionError(f"stream {stream} ended without a frame")
        at, length = found
        b = self.data[stream]
        opcode, payload = b[0] & 0x0F, bytes(b[at:at + length])
        del b[:at + length]
        return opcode, payload


def masked(opcode, payload):
    key = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + key + bytes(b ^ key[i & 3] for i, b in enumerate(payload))


def main(port):
    failures = 0

    def case(name, check):
        nonlocal failures
        try:
            check()
            print(f"  ok {name}")
        except Exception as e:  # a failed case is reported, the others still run
            failures += 1
            print(f"  FAIL {name}: {e!r}")

    peer = Peer(port)
    streams = {}

    def setting():
        peer.pump(lambda: peer.settings_seen)
        value = peer.conn.remote_settings.get(h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL)
        assert value == 1, f"SETTINGS_ENABLE_CONNECT_PROTOCOL is {value}"

    def opened():
        for name in ("a", "b"):
            streams[name] = peer.open("/ws/echo")
            status = peer.heads[streams[name]].get(":status")
            assert status == "200", f"status {status}"
            assert streams[name] not in peer.ended, "the stream ended with its answer"

    def text():
        for name, stream in streams.items():
            peer.send(stream, masked(0x1, f"hello over h2 from {name}".encode()))
            assert peer.frame(stream) == (0x1, f"hello over h2 from {name}".encode())

    def binary():
        blob = os.urandom(200_000)
        peer.send(streams["a"], masked(0x2, blob))
        opcode, payload = peer.frame(streams["a"])
        assert opcode == 0x2 and payload == blob, f"opcode {opcode}, {len(payload)} bytes"

    def ping():
        peer.send(streams["b"], masked(0x9, b"are you there"))
        assert peer.frame(streams["b"]) == (0xA, b"are you there")

    def close():
        peer.send(streams["a"], masked(0x8, struct.pack(">H", 1000) + b"done"))
        opcode, payload = peer.frame(streams["a"])
        assert opcode == 0x8 and struct.unpack(">H", payload[:2])[0] == 1000, f"{opcode} {payload!r}"
        peer.pump(lambda: streams["a"] in peer.ended)

    def others_live_on():
        peer.send(streams["b"], masked(0x1, b"still here"))
        assert peer.frame(streams["b"]) == (0x1, b"still here")
        stream = peer.conn.get_next_available_stream_id()
        peer.conn.send_headers(stream, [(":method", "GET"), (":scheme", "http"), (":path", "/plaintext"),
                                        (":authority", "127.0.0.1")], end_stream=True)
        peer.flush()
        peer.pump(lambda: stream in peer.ended)
        assert peer.heads[stream].get(":status") == "200"
        assert bytes(peer.data[stream]) == b"Hello, World!"

    case("the server offers extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1)", setting)
    case("two sockets open on one connection (200, stream open)", opened)
    if len(streams) == 2:
        case("text echo on both streams", text)
        case("200 KB binary echo, past the flow-control windows", binary)
        case("ping answered with its payload", ping)
        case("close 1000 answered and the stream ended", close)
        case("the other socket and a GET on the connection still work", others_live_on)
    peer.sock.close()
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(int(sys.argv[1])))
