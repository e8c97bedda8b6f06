// SPDX-License-Identifier: Apache-2.0
// WebSocket interop client for the benchmark app's /ws/echo (scripts/websocket-interop.sh), with
// Node's `ws` package (resolved through NODE_PATH or a node_modules beside the caller):
//   node ws_interop.mjs <port>
// An echo of text and binary messages checked byte for byte, permessage-deflate agreed on, a ping
// answered by its pong, a close with 1000 answered with 1000 and the TCP connection then ended by
// the server, and a text frame of invalid UTF-8 closed with 1007. One line per case (ok/FAIL);
// exit 0 when all pass, 1 if not. The whole run gives up after DEADLINE_MS.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const WebSocket = require('ws');

const DEADLINE_MS = 28_000;
const IO_TIMEOUT_MS = 10_000;
// ws waits 30 s for the server to end TCP after the closing handshake, then destroys the socket
// itself: a close event well before that means the server ended it.
const SERVER_ENDED_WITHIN_MS = 5_000;
const MAX_SIZE = 16 << 20;

const port = process.argv[2];
if (process.argv.length !== 3 || !/^[0-9]+$/.test(port)) {
  console.error('usage: node ws_interop.mjs <port>');
  process.exit(2);
}
const url = `ws://127.0.0.1:${port}/ws/echo`;
let failed = 0;
function report(name, ok, detail = '') {
  if (!ok) failed++;
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
}

function within(ms, what, promise) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

// Each message event, in order, as a queue the cases take from.
function open(options) {
  const ws = new WebSocket(url, { maxPayload: MAX_SIZE, handshakeTimeout: IO_TIMEOUT_MS, ...options });
  const queued = [];
  const waiting = [];
  ws.on('message', (data, isBinary) => {
    const m = { data, isBinary };
    if (waiting.length) waiting.shift()(m); else queued.push(m);
  });
  const next = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((r) => waiting.push(r)));
  const closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() })));
  const opened = new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('error', () => {});
  return { ws, next, closed, opened };
}

const big = 'interop \u00e9\u2603\u{1F600} '.repeat(4096);
const texts = [['empty', ''], ['ascii', 'Hello, World!'], ['utf-8', 'h\u00e9llo \u2603 \u4e16\u754c \u{1F600}'],
  ['64KiB', big.slice(0, 64 * 1024)]];
const binaries = [0, 125, 126, 65536, 1 << 20].map((n) => [`${n}B`, randomBytes(n)]);

async function echoCases() {
  const c = open({ perMessageDeflate: true });
  await within(IO_TIMEOUT_MS, 'the handshake', c.opened);
  report('permessage-deflate negotiated', Object.hasOwn(parseExtensions(c.ws.extensions || ''), 'permessage-deflate'),
    `extensions: ${JSON.stringify(c.ws.extensions)}`);
  for (const [name, text] of texts) {
    c.ws.send(text);
    const m = await within(IO_TIMEOUT_MS, `text ${name}`, c.next());
    const ok = !m.isBinary && m.data.toString('utf8') === text;
    report(`text ${name} echoed`, ok, ok ? '' : `got ${m.isBinary ? 'binary' : 'text'} of ${m.data.length} bytes`);
  }
  for (const [name, bytes] of binaries) {
    c.ws.send(bytes);
    const m = await within(IO_TIMEOUT_MS, `binary ${name}`, c.next());
    const ok = m.isBinary && Buffer.compare(Buffer.from(m.data), bytes) === 0;
    report(`binary ${name} echoed`, ok, ok ? '' : `got ${m.isBinary ? 'binary' : 'text'} of ${m.data.length} bytes`);
  }
  const payload = randomBytes(16);
  const pong = new Promise((resolve) => c.ws.on('pong', (data) => { if (Buffer.compare(data, payload) === 0) resolve(); }));
  c.ws.ping(payload);
  try {
    await within(IO_TIMEOUT_MS, 'the pong', pong);
    report('ping answered by its pong', true);
  } catch (e) {
    report('ping answered by its pong', false, e.message);
  }
  const closing = Date.now();
  c.ws.close(1000, 'bye');
  const end = await within(IO_TIMEOUT_MS * 4, 'the close', c.closed);
  report('close 1000 answered with 1000', end.code === 1000, `server's close code ${end.code}`);
  report('close 1000: the server ended the TCP connection', end.at - closing < SERVER_ENDED_WITHIN_MS,
    `closed ${end.at - closing} ms after the client's close frame`);
}

function parseExtensions(header) {
  return Object.fromEntries(header.split(',').map((e) => [e.split(';')[0].trim(), true]));
}

async function invalidUtf8Case() {
  const c = open({ perMessageDeflate: false });
  await within(IO_TIMEOUT_MS, 'the handshake', c.opened);
  // a Buffer sent as text goes out as it is, unchecked: a lone continuation byte, then a surrogate
  c.ws.send(Buffer.from([0x6f, 0x6b, 0x20, 0x80, 0x20, 0xed, 0xa0, 0x80]), { binary: false });
  const end = await within(IO_TIMEOUT_MS, 'the close', c.closed);
  report('invalid UTF-8 text: closed with 1007', end.code === 1007, `server's close code ${end.code}`);
}

async function main() {
  console.log(`node ${process.version}, ws ${require('ws/package.json').version} against ${url}`);
  for (const [name, run] of [['echo connection', echoCases], ['invalid UTF-8 connection', invalidUtf8Case]]) {
    try {
      await run();
    } catch (e) {
      report(name, false, e.message);
    }
  }
}

const deadline = setTimeout(() => {
  report('run', false, `not done within ${DEADLINE_MS} ms`);
  process.exit(1);
}, DEADLINE_MS);
await main();
clearTimeout(deadline);
process.exit(failed === 0 ? 0 : 1);
