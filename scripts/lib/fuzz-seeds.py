#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the fuzz tests' seed corpus under core/src/test/resources/dev/spindle/core/fuzz.

    python3 scripts/lib/fuzz-seeds.py

Each request below becomes one plain file for RequestParserFuzzTest#anyBytesParseOrFailWithAnErrorStatus,
and the same bytes plus a 16-byte control block (see Controls.java) for
RequestParserFuzzTest#splittingDoesNotChangeWhatIsParsed and ConnectionFuzzTest. The FramingFuzzTest
seeds are FuzzedDataProvider inputs encoded for FramingFuzzTest.build(): rerun this after changing
the order in which build() consumes its data. Crash files Jazzer writes beside the seeds are kept.
"""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BASE = os.path.join(ROOT, "core/src/test/resources/dev/spindle/core/fuzz")

H = "Host: h\r\n"
P = "POST /echo HTTP/1.1\r\n" + H
C = P + "Transfer-Encoding: chunked\r\n\r\n"


def get(target, extra=""):
    return f"GET {target} HTTP/1.1\r\n{H}{extra}\r\n"


fields128 = H + "".join(f"X-F{i}: v{i}\r\n" for i in range(1, 128))
fields7 = H + "".join(f"X-F{i}: v\r\n" for i in range(1, 7))

# One request stream per seed: real, pipelined and malformed requests.
REQUESTS = {
 "get-simple": "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
 "get-query": "GET /search?q=a%20b&x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
 "get-search-missing-q": get("/search"),
 "get-search-bad-percent": get("/search?q=%zz+x"),
 "get-users-percent": get("/users/a%20b") + get("/users/%zz") + get("/users/%C3%A9"),
 "get-three-segments-404": get("/a/b/c"),
 "head": "HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n",
 "head-pipelined-with-get": "HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n" + get("/b") + "HEAD /nope/x/y HTTP/1.1\r\nHost: h\r\n\r\n",
 "head-then-parse-error": "HEAD /a HTTP/1.1\r\nHost: h\r\nX : y\r\n\r\n",
 "options-asterisk": "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
 "absolute-form": "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
 "absolute-form-no-path": "GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
 "extension-method-405": "PURGE /cache HTTP/1.1\r\nHost: h\r\n\r\n",
 "post-content-length": P + "Content-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world",
 "post-content-length-zero": P + "Content-Length: 0\r\n\r\n",
 "post-body-crlf-nul": P + "Content-Length: 8\r\n\r\n\r\n\0\r\nGET",
 "put-delete-patch": "PUT /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab" + "DELETE /a/b HTTP/1.1\r\nHost: h\r\n\r\n" + "PATCH / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nz",
 "chunked-extensions-trailers": C + "5;name=value\r\nhello\r\n6 ; q=\"a;b\" ;x\r\n world\r\n0;last=1\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n",
 "chunked-hex-case": C + "A\r\n0123456789\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n00a\r\nABCDEFGHIJ\r\n000\r\n\r\n",
 "chunked-empty": C + "0\r\n\r\n",
 "pipelined-mix": get("/1") + P.replace("/echo", "/2") + "Content-Length: 3\r\n\r\nxyz" + get("/3?a=b")
     + C.replace("/echo", "/4") + "2\r\nab\r\n0\r\n\r\n" + get("/5", "Connection: close\r\n"),
 "pipelined-16-gets": "".join(get(f"/users/{i}") for i in range(16)),
 "http10": "GET / HTTP/1.0\r\n\r\n",
 "http10-keep-alive-pipelined": "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\nConnection: Keep-Alive, close\r\n\r\nGET /c HTTP/1.0\r\n\r\n",
 "http10-post": "POST /echo HTTP/1.0\r\nContent-Length: 4\r\n\r\nabcd",
 "connection-close-then-more": get("/a", "Connection: close\r\n") + get("/b"),
 "connection-list-close": get("/a", "Connection: Upgrade , CLOSE\r\n") + get("/b"),
 "expect-continue-length": P + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\nhello" + get("/after"),
 "expect-continue-chunked": P + "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
 "expect-continue-http10": "POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
 "expect-continue-body-missing": P + "Expect: 100-continue\r\nContent-Length: 10\r\n\r\n",
 "expect-unknown-417": P + "Expect: 200-ok\r\nContent-Length: 1\r\n\r\nx",
 "obs-fold": get("/", "X-A: v\r\n w\r\n"),
 "bare-cr-in-value": get("/", "X-A: a\rb\r\n"),
 "nul-in-value": get("/", "X-A: a\0b\r\n"),
 "nul-in-target": "GET /a\0b HTTP/1.1\r\nHost: h\r\n\r\n",
 "del-in-value": get("/", "X-A: a\x7fb\r\n"),
 "obs-text-in-value": get("/", "X-Latin: caf\xe9 \x80\xff\xa0end\r\n"),
 "bare-lf-everywhere": "GET / HTTP/1.1\nHost: h\n\n",
 "bare-lf-after-request-line-x": "GET / HTTP/1.1x\nHost: h\r\n\r\n",
 "bare-lf-ending-headers": "GET / HTTP/1.1\r\nHost: h\r\n\n",
 "leading-crlfs": "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
 "too-many-leading-crlfs": "\r\n" * 9 + get("/"),
 "empty-values-and-ows": "GET / HTTP/1.1\r\nHost:h\r\nX-A:   spaced  value \t \r\nX-B:\tv\r\nX-Empty:\r\n\r\n",
 "space-before-colon": "GET / HTTP/1.1\r\nHost : h\r\n\r\n",
 "tab-before-colon": get("/", "X-A\t: v\r\n"),
 "whitespace-before-first-field": "GET / HTTP/1.1\r\n " + H + "\r\n",
 "empty-field-name": get("/", ": v\r\n"),
 "missing-host": "GET / HTTP/1.1\r\nX-A: v\r\n\r\n",
 "two-hosts": "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n",
 "fragment-in-target": get("/a#frag"),
 "non-ascii-target": "GET /caf\xe9 HTTP/1.1\r\nHost: h\r\n\r\n",
 "method-with-paren": "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n",
 "two-spaces-after-method": "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
 "version-2-0": "GET / HTTP/2.0\r\nHost: h\r\n\r\n",
 "version-1-x": "GET / HTTP/1.x\r\nHost: h\r\n\r\n",
 "version-1-9": "GET / HTTP/1.9\r\nHost: h\r\n\r\n",
 "lowercase-version": "GET / http/1.1\r\nHost: h\r\n\r\n",
 "headers-128-fields": "GET /many HTTP/1.1\r\n" + fields128 + "\r\n",
 "headers-7-fields": "GET /few HTTP/1.1\r\n" + fields7 + "\r\n",
 "long-request-line": "GET /" + "a" * 200 + " HTTP/1.1\r\nHost: h\r\n\r\n",
 "long-header-section": get("/", "X-Pad: " + "p" * 500 + "\r\n"),
 "long-body": P + "Content-Length: 100\r\n\r\n" + "b" * 100,
 "long-chunked-body": C + "20\r\n" + "c" * 32 + "\r\n20\r\n" + "d" * 32 + "\r\n0\r\n\r\n",
 "cl-and-te": P + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
 "te-and-cl": P + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + get("/smuggled"),
 "te-and-cl-zero": P + "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n",
 "cl-differing-fields": P + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef",
 "cl-differing-list": P + "Content-Length: 5, 6\r\n\r\nabcdef",
 "cl-identical-list": P + "Content-Length: 5, 5\r\n\r\nabcde",
 "cl-identical-fields": P + "Content-Length: 5\r\ncontent-length: 05\r\n\r\nabcde",
 "cl-plus-sign": P + "Content-Length: +5\r\n\r\nabcde",
 "cl-negative": P + "Content-Length: -1\r\n\r\n",
 "cl-overflow": P + "Content-Length: 99999999999999999999999\r\n\r\n",
 "cl-empty": P + "Content-Length:\r\n\r\n",
 "te-gzip": P + "Transfer-Encoding: gzip\r\n\r\n",
 "te-gzip-chunked": P + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
 "te-chunked-gzip": P + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
 "te-chunked-twice": P + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
 "te-two-fields": P + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
 "te-empty": P + "Transfer-Encoding: \r\n\r\n",
 "te-http10": "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
 "te-uppercase-chunked": "POST /echo HTTP/1.1\r\nHost: h\r\nTRANSFER-ENCODING: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
 "chunk-size-invalid": C + "zz\r\nab\r\n0\r\n\r\n",
 "chunk-size-overflow": C + "fffffffffffffffffff\r\n",
 "chunk-size-sign-bit": C + "8000000000000000\r\nab\r\n0\r\n\r\n",
 "chunk-size-16-digits": C + "ffffffffffffffff\r\nab\r\n0\r\n\r\n" + get("/after"),
 "chunk-size-empty": C + "\r\nab\r\n0\r\n\r\n",
 "chunk-data-missing-crlf": C + "3\r\nabcX\r\n0\r\n\r\n",
 "chunk-extension-ctl": C + "3;a\x01\r\nabc\r\n0\r\n\r\n",
 "chunk-bare-lf": C + "3\r\nabc\n0\r\n\r\n",
 "trailer-malformed": C + "0\r\nX-T : v\r\n\r\n",
 "slow-route-pipelined": get("/slow/1") + get("/a") + "POST /slow/2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz" + get("/b"),
 "slow-route-then-more-bytes": get("/slow/abc") + get("/users/zzzzzzzzzzzzzzzz") + get("/slow/d", "Connection: close\r\n"),
 "partial-request-line": "GET /a HTTP/1.1\r\nHo",
 "partial-body": P + "Content-Length: 10\r\n\r\nabc",
 "partial-chunk": C + "a\r\nabc",
}

METHODS = ["POST", "PUT", "PATCH", "GET"]
TARGETS = ["/echo", "/a/b", "/slow/x", "http://h/x"]
CODINGS = ["chunked", "Chunked", "CHUNKED", "gzip", "identity", "deflate", "chunked;q=1", ""]
SEPARATORS = [", ", ",", " , ", ",,", "\t,"]
OTHER = ["Connection: keep-alive", "Connection: close", "Content-Type: text/plain", "Expect: 100-continue", "X-Content-Length: 1", "Trailer: X"]



class Enc:
    """A FuzzedDataProvider input: integers are read from the end, one byte each here, bytes from the front."""

    def __init__(self):
        self.back = []
        self.front = bytearray()

    def int_(self, lo, hi, v):
        assert lo <= v <= hi and hi - lo < 256
        # Jazzer returns a raw byte that lies in [lo, hi] as it is (else lo + byte % (hi - lo + 1)).
        self.back.append(v)

    def bool_(self, v):
        self.back.append(1 if v else 0)

    def pick(self, values, v):
        self.int_(0, len(values) - 1, values.index(v))

    def bytes_(self, b):
        self.front += b

    def data(self):
        return bytes(self.front) + bytes(reversed(self.back))


def framing_input(case):
    """Encodes a case in the order FramingFuzzTest.build() consumes: fields are ("CL", n, variant[, extra]),
    ("TE", [codings], [separators]) or ("OTHER", field)."""
    e = Enc()
    e.bool_(case.get("bytewise", False)); e.bool_(case.get("offload", False))
    e.int_(0, 3, 0 if case.get("http10") else 1)
    e.pick(METHODS, case.get("method", "POST")); e.pick(TARGETS, case.get("target", "/echo"))
    fields = case["fields"]
    e.int_(1, 4, len(fields))
    for f in fields:
        if f[0] == "CL":
            _, n, variant, *rest = f
            e.int_(0, 2, 0)
            e.int_(0, 40, n); e.int_(0, 9, variant)
            if variant == 4: e.int_(0, 40, rest[0])
            if variant == 6: e.pick(["+", "-", " ", "0x", ""], rest[0])
            if variant == 7: e.pick([" ", ";", ",", " 5", ".0"], rest[0])
            e.int_(0, 2, 0); e.int_(0, 2, 0)
        elif f[0] == "TE":
            _, codings, seps = f
            e.int_(0, 2, 1)
            e.int_(0, 7, 1); e.int_(1, 3, len(codings)); e.pick(CODINGS, codings[0])
            for s, c in zip(seps, codings[1:]):
                e.pick(SEPARATORS, s); e.pick(CODINGS, c)
            e.int_(0, 2, 0)
        else:
            e.int_(0, 2, 2); e.pick(OTHER, f[1])
    body = case.get("body", "")
    framing = case["framing"]
    if framing == "LENGTH":
        e.bytes_(body.encode("latin-1"))
    elif framing == "CHUNKED":
        payload = body.encode("latin-1")
        e.int_(0, 96, len(payload)); e.bytes_(payload)
        at = 0
        for size, upper, ext in case.get("chunks", []):
            e.int_(1, 32, size); e.bool_(upper); e.int_(0, 3, 0 if ext else 1)
            at += size
        assert at == len(payload), case
        e.bool_(case.get("trailer", False))
    elif framing == "AMBIGUOUS":
        raw = body.encode("latin-1")
        e.int_(0, 64, len(raw)); e.bytes_(raw)
    e.bool_(case.get("smuggled", False))
    return e.data()


# The framing test's cases: every kind of ambiguity, and unambiguous requests that must get a 200.
FRAMING = {
 "ambiguous-cl-then-te-chunked": dict(framing="AMBIGUOUS", fields=[("CL", 5, 0), ("TE", ["chunked"], [])], body="0\r\n\r\n", smuggled=True),
 "ambiguous-te-chunked-then-cl": dict(framing="AMBIGUOUS", target="/a/b", fields=[("TE", ["chunked"], []), ("CL", 3, 0)], body="abc", smuggled=True),
 "ambiguous-te-chunked-cl-zero": dict(framing="AMBIGUOUS", method="PUT", fields=[("TE", ["chunked"], []), ("CL", 0, 0)], body="0\r\n\r\n"),
 "ambiguous-te-chunked-cl-list": dict(framing="AMBIGUOUS", fields=[("TE", ["chunked"], []), ("CL", 5, 3)], body="5\r\nhello\r\n0\r\n\r\n", bytewise=True),
 "ambiguous-te-chunked-http10": dict(framing="AMBIGUOUS", http10=True, fields=[("TE", ["chunked"], [])], body="0\r\n\r\n", smuggled=True),
 "ambiguous-cl-differing-fields": dict(framing="AMBIGUOUS", fields=[("CL", 5, 0), ("CL", 6, 0)], body="abcdef", smuggled=True),
 "ambiguous-cl-differing-list": dict(framing="AMBIGUOUS", fields=[("CL", 5, 4, 6)], body="abcdef"),
 "ambiguous-cl-plus": dict(framing="AMBIGUOUS", fields=[("CL", 5, 6, "+")], body="abcde"),
 "ambiguous-cl-minus": dict(framing="AMBIGUOUS", fields=[("CL", 5, 6, "-")], body="abcde"),
 "ambiguous-cl-hex": dict(framing="AMBIGUOUS", fields=[("CL", 5, 6, "0x")], body="abcde"),
 "ambiguous-cl-two-numbers": dict(framing="AMBIGUOUS", fields=[("CL", 5, 7, " 5")], body="abcde"),
 "ambiguous-cl-semicolon": dict(framing="AMBIGUOUS", method="GET", fields=[("CL", 5, 7, ";")], body="abcde"),
 "ambiguous-cl-trailing-comma": dict(framing="AMBIGUOUS", fields=[("CL", 5, 7, ",")], body="abcde"),
 "length-overflowing": dict(framing="AMBIGUOUS", fields=[("CL", 5, 8)], body="abcde"),
 "ambiguous-te-chunked-twice": dict(framing="AMBIGUOUS", fields=[("TE", ["chunked", "chunked"], [", "])], body="0\r\n\r\n"),
 "ambiguous-te-chunked-in-two-fields": dict(framing="AMBIGUOUS", fields=[("TE", ["chunked"], []), ("TE", ["Chunked"], [])], body="0\r\n\r\n", smuggled=True),
 "ambiguous-te-gzip": dict(framing="AMBIGUOUS", fields=[("TE", ["gzip"], [])], body="abc"),
 "ambiguous-te-identity": dict(framing="AMBIGUOUS", method="PATCH", fields=[("TE", ["identity"], [])], body="abc"),
 "ambiguous-te-gzip-chunked": dict(framing="AMBIGUOUS", fields=[("TE", ["gzip", "chunked"], [", "])], body="0\r\n\r\n"),
 "ambiguous-te-chunked-gzip": dict(framing="AMBIGUOUS", fields=[("TE", ["chunked", "gzip"], [","])], body="0\r\n\r\n"),
 "ambiguous-te-chunked-param": dict(framing="AMBIGUOUS", fields=[("TE", ["chunked;q=1"], [])], body="0\r\n\r\n"),
 "ambiguous-te-empty": dict(framing="AMBIGUOUS", fields=[("TE", [""], [])], body=""),
 "ambiguous-te-deflate-then-chunked-field": dict(framing="AMBIGUOUS", offload=True, target="/slow/x", fields=[("TE", ["deflate"], []), ("TE", ["chunked"], [])], body="0\r\n\r\n"),
 "length-body-then-smuggled": dict(framing="LENGTH", fields=[("CL", 11, 0)], body="hello world", smuggled=True),
 "length-http10": dict(framing="LENGTH", http10=True, fields=[("CL", 4, 0)], body="abcd"),
 "length-identical-list": dict(framing="LENGTH", method="PUT", target="/a/b", fields=[("CL", 5, 3)], body="abcde"),
 "length-identical-fields": dict(framing="LENGTH", fields=[("CL", 5, 0), ("CL", 5, 5)], body="abcde", bytewise=True),
 "length-expect-continue-bytewise": dict(framing="LENGTH", fields=[("OTHER", "Expect: 100-continue"), ("CL", 7, 0)], body="bytes!!", bytewise=True),
 "length-offloaded": dict(framing="LENGTH", offload=True, target="/slow/x", fields=[("CL", 3, 0), ("OTHER", "Connection: keep-alive")], body="xyz", smuggled=True),
 "length-leading-space": dict(framing="LENGTH", method="PATCH", target="http://h/x", fields=[("CL", 2, 6, " ")], body="ok"),
 "length-connection-close": dict(framing="LENGTH", fields=[("OTHER", "Connection: close"), ("CL", 1, 0)], body="z", smuggled=True),
 "chunked-extension-trailer": dict(framing="CHUNKED", target="/a/b", fields=[("TE", ["chunked"], [])], body="hello chunked world", chunks=[(5, False, True), (14, True, False)], trailer=True, smuggled=True),
 "chunked-uppercase-expect-bytewise": dict(framing="CHUNKED", fields=[("OTHER", "Expect: 100-continue"), ("TE", ["CHUNKED"], [])], body="0123456789abcdef0123", chunks=[(16, True, False), (4, False, False)], bytewise=True),
 "chunked-empty-elements": dict(framing="CHUNKED", method="PUT", fields=[("TE", ["", "chunked"], [", "])], body="abc", chunks=[(3, False, False)]),
 "chunked-offloaded": dict(framing="CHUNKED", offload=True, target="/slow/x", fields=[("TE", ["Chunked"], [])], body="slow", chunks=[(1, False, False), (3, False, True)], smuggled=True),
 "none-get-smuggled": dict(framing="NONE", method="GET", target="/a/b", fields=[("OTHER", "X-Content-Length: 1")], smuggled=True),
 "none-trailer-field": dict(framing="NONE", method="GET", target="/echo", fields=[("OTHER", "Trailer: X"), ("OTHER", "Content-Type: text/plain")]),
}

CUT_SETS = [[0] * 8, [0x33, 0, 0x66, 0, 0x99, 0, 0xCC, 0], [0, 1, 0, 2, 0x80, 0, 0xFF, 0xFF], [0x10, 0, 0x20, 0, 0x70, 0, 0x71, 0]]


def controls(values):
    """Controls.take() reads the input's last byte first: values[0] goes last."""
    return bytes(reversed(values + [0] * (16 - len(values))))


def connection_controls(i, name, raw):
    # flags: bit0 small limits, bit1 keep-alive off, bit2 offload, bit3 high-water mark,
    # bit4 closeAfterResponse, bit5 lagging driver; varied over the seeds
    flags = [0, 0b100, 0b1000, 0b100101, 0b1100, 0b10, 0b10000, 0b100100][i % 8]
    write_step = [0, 7, 0, 1, 64, 0, 3, 5][i % 8]
    cuts = CUT_SETS[(i + 1) % 4]
    if name.startswith("slow-route") or name.startswith("pipelined"):
        flags, cuts, write_step = 0b100100, CUT_SETS[1], 9
    if name == "slow-route-then-more-bytes":
        # Small buffers, offloaded and lagging, cut right after the first request: the next piece
        # lands where the offloaded request was parsed from.
        f = -(-len(get("/slow/abc")) * 65536 // len(raw))
        cuts = [f >> 8, f & 0xFF] + [0] * 6
        flags, write_step = 0b100101, 0
    return controls([flags] + cuts + [write_step, i % 3, 40])


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def clear_seeds(directory):
    if os.path.isdir(directory):
        for name in os.listdir(directory):
            if not name.startswith("crash-"):
                os.remove(os.path.join(directory, name))


def main():
    raw_dir = f"{BASE}/RequestParserFuzzTestInputs/anyBytesParseOrFailWithAnErrorStatus"
    split_dir = f"{BASE}/RequestParserFuzzTestInputs/splittingDoesNotChangeWhatIsParsed"
    connection_dir = f"{BASE}/ConnectionFuzzTestInputs/answersEveryRequestInOrderOrClosesWithAnError"
    framing_dir = f"{BASE}/FramingFuzzTestInputs/ambiguousFramingIsNeverAnswered2xx"
    for d in (raw_dir, split_dir, connection_dir, framing_dir):
        clear_seeds(d)
    for i, (name, text) in enumerate(sorted(REQUESTS.items())):
        raw = text.encode("latin-1")
        write(raw_dir, name + ".http", raw)
        write(split_dir, name, raw + controls([i & 1] + CUT_SETS[i % 4]))
        write(connection_dir, name, raw + connection_controls(i, name, raw))
    for name, case in FRAMING.items():
        write(framing_dir, name, framing_input(case))
    print(f"{len(REQUESTS)} requests, {len(FRAMING)} framing cases written under {os.path.relpath(BASE, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
