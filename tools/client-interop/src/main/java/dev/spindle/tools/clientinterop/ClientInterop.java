// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.clientinterop;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.ClientPool;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.nio.MultiLoopServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.zip.CRC32;

/**
 * Spindle's client against other HTTPS servers (scripts/client-interop.sh starts nginx and h2o in
 * front of a Spindle backend): for each target, both ways a handler calls, blocking ({@code call()}
 * on this thread) and on an event loop ({@code send()} from an asynchronous handler of a
 * MultiLoopServer this tool runs): a static file the target serves itself, checked byte for byte;
 * a body POSTed to the backend's {@code /echo} through the target and echoed back; three requests
 * on one kept-alive connection. Servers that are targets themselves (no proxy in front) answer
 * {@code /echo} and {@code /plaintext} on their own. Over HTTP/2 ({@code h2} by ALPN on
 * {@code https:}, {@code h2c} by prior knowledge on {@code http:}; the client speaks it on event
 * loops only) the same three on the loop, every response's version {@code HTTP/2}, the three
 * requests and 32 sent at once on one connection. One line per case on stderr, {@code ok} or
 * {@code FAIL}.
 *
 * <pre>ClientInterop --trust STORE --password PW --file PATH --served-at /files/big NAME=https://HOST:PORT ...
 *     [--file PATH2 --served-at /download [--protocols h2c] NAME2=http://HOST:PORT ...]</pre>
 *
 * A target's file is the {@code --file} and {@code --served-at} given last before it: the proxies
 * serve a file of their own, a benchmark app its {@code /download}. Its protocols likewise are the
 * {@code --protocols} given last before it (a comma-separated list of {@code http/1.1}, {@code h2}
 * and {@code h2c}), by default {@code http/1.1,h2} for an {@code https:} target and {@code h2c}
 * for an {@code http:} one.
 *
 * Exit status: 0 every case passed, 1 one failed, 2 bad arguments.
 */
public final class ClientInterop {
    private static final int ECHO_BYTES = 512 * 1024;
    /** Requests sent at once in the {@code concurrent} case, below every target's stream limit (100 or more). */
    private static final int CONCURRENT = 32;
    private static final List<String> CASES = List.of("file", "echo", "keep-alive");
    /** The concurrent case first: on a fresh pool, the destination's first connection must take all 32. */
    private static final List<String> HTTP2_CASES = List.of("concurrent", "file", "echo", "keep-alive");

    /** How a target is spoken to: HTTP/1.1 (blocking and on the loop), h2 by ALPN or h2c (on the loop). */
    private enum Protocol {
        HTTP_1_1("http/1.1", "HTTP/1.1"), H2("h2", "HTTP/2"), H2C("h2c", "HTTP/2");

        final String label;
        final String version;

        Protocol(String label, String version) {
            this.label = label;
            this.version = version;
        }

        static Protocol of(String label) {
            for (Protocol p : values()) {
                if (p.label.equals(label)) {
                    return p;
                }
            }
            return null;
        }
    }

    /** A server to call: its base address, the file it serves at {@code filePath}, the protocols to speak. */
    private record Target(String base, byte[] file, String filePath, List<Protocol> protocols) {
        /** {@return the destination as {@link Client#pools()} names it: scheme and authority} */
        String destination() {
            URI uri = URI.create(base);
            return uri.getScheme() + "://" + uri.getRawAuthority();
        }
    }

    private final Map<Protocol, Client> clients;
    private final byte[] echo;

    private ClientInterop(Map<Protocol, Client> clients) {
        this.clients = clients;
        this.echo = new byte[ECHO_BYTES];
        new Random(7).nextBytes(echo);
    }

    public static void main(String[] args) throws Exception {
        Path trust = null;
        String password = null;
        Path file = null;
        String servedAt = null;
        byte[] bytes = null;
        List<Protocol> protocols = null;
        Map<String, Target> targets = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 == args.length) {
                usage(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--trust" -> trust = Path.of(args[++i]);
                case "--password" -> password = args[++i];
                case "--file" -> {
                    file = Path.of(args[++i]);
                    bytes = Files.readAllBytes(file);
                }
                case "--served-at" -> servedAt = args[++i];
                case "--protocols" -> {
                    protocols = new ArrayList<>();
                    for (String label : args[++i].split(",")) {
                        Protocol p = Protocol.of(label.trim());
                        if (p == null) {
                            usage("not http/1.1, h2 or h2c: " + label);
                        }
                        protocols.add(p);
                    }
                }
                default -> {
                    int eq = args[i].indexOf('=');
                    if (eq <= 0) {
                        usage("not NAME=URL: " + args[i]);
                    }
                    if (file == null || servedAt == null) {
                        usage("--file and --served-at must come before the target " + args[i]);
                    }
                    String base = args[i].substring(eq + 1);
                    boolean secure = base.startsWith("https://");
                    if (!secure && !base.startsWith("http://")) {
                        usage("not an http: or https: address: " + args[i]);
                    }
                    List<Protocol> speak = protocols != null ? protocols : secure ? List.of(Protocol.HTTP_1_1, Protocol.H2) : List.of(Protocol.H2C);
                    if (secure ? speak.contains(Protocol.H2C) : speak.contains(Protocol.H2)) {
                        usage("h2 is for https: targets, h2c for http: ones: " + args[i]);
                    }
                    if (targets.put(args[i].substring(0, eq), new Target(base, bytes, servedAt, speak)) != null) {
                        usage("two targets named " + args[i].substring(0, eq));
                    }
                }
            }
        }
        if (trust == null || password == null || targets.isEmpty()) {
            usage("--trust, --password and a target are needed");
        }
        ClientConfig config = ClientConfig.defaults().responseTimeout(Duration.ofSeconds(10)).trustStore(trust, password.toCharArray());
        // a client per protocol: HTTP/1.1 with HTTP/2 off, as before; their pools count apart
        try (Client http11 = Client.create(config); Client h2 = Client.create(config.http2(true));
                Client h2c = Client.create(config.h2cPriorKnowledge(true))) {
            Map<Protocol, Client> clients = Map.of(Protocol.HTTP_1_1, http11, Protocol.H2, h2, Protocol.H2C, h2c);
            System.exit(new ClientInterop(clients).run(targets) ? 0 : 1);
        }
    }

    private static void usage(String why) {
        System.err.println("error: " + why);
        System.err.println("usage: ClientInterop --trust STORE --password PW "
                + "{--file PATH --served-at PATH [--protocols http/1.1,h2,h2c] NAME=URL ...} ...");
        System.exit(2);
    }

    private boolean run(Map<String, Target> targets) throws IOException {
        HttpServer loop = new MultiLoopServer(ServerConfig.defaults().port(0).workers(1), Router.builder()
                .get("/run", Handler.async((req, res) -> onLoop(targets.get(req.queryParam("target")),
                        Protocol.of(req.queryParam("protocol")), req.queryParam("case"))
                        .handle((outcome, failure) -> {
                            res.text(failure == null ? outcome : "FAIL " + describe(failure));
                            return null;
                        })))
                .build()).start();
        boolean passed = true;
        try {
            for (Map.Entry<String, Target> t : targets.entrySet()) {
                for (Protocol p : t.getValue().protocols()) {
                    if (p == Protocol.HTTP_1_1) {
                        for (String c : CASES) {
                            passed &= report(t.getKey(), c, "blocking, " + p.label, blocking(t.getValue(), c));
                            passed &= report(t.getKey(), c, "event loop, " + p.label, viaLoop(loop.port(), t.getKey(), p, c));
                        }
                    } else {
                        for (String c : HTTP2_CASES) {
                            passed &= report(t.getKey(), c, "event loop, " + p.label, viaLoop(loop.port(), t.getKey(), p, c));
                        }
                    }
                }
            }
        } finally {
            loop.close();
        }
        return passed;
    }

    private static boolean report(String target, String c, String how, String outcome) {
        boolean ok = outcome.startsWith("ok");
        System.err.printf("  %s %s %s (%s): %s%n", ok ? "ok" : "FAIL", target, c, how, outcome);
        return ok;
    }

    /** The case on this thread, with {@code call()}: HTTP/1.1, which is all the client speaks off the loops. */
    private String blocking(Target t, String c) {
        Client client = clients.get(Protocol.HTTP_1_1);
        String base = t.base();
        String version = Protocol.HTTP_1_1.version;
        try {
            return switch (c) {
                case "file" -> checkFile(t, version, client.get(base + t.filePath()).call());
                case "echo" -> checkEcho(version, client.post(base + "/echo").header("Content-Type", "application/octet-stream")
                        .body(new ByteArrayInputStream(echo), echo.length).call());
                default -> {
                    String last = "";
                    for (int i = 0; i < 3; i++) {
                        last = checkHello(version, client.get(base + "/plaintext").call());
                        if (!last.startsWith("ok")) {
                            break;
                        }
                    }
                    yield last;
                }
            };
        } catch (ClientException e) {
            return "FAIL " + describe(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "FAIL interrupted";
        }
    }

    /** The case on the loop of this tool's server, with {@code send()}, in protocol {@code p}. */
    private CompletionStage<String> onLoop(Target t, Protocol p, String c) {
        if (t == null || p == null) {
            return CompletableFuture.completedFuture("FAIL no such target or protocol");
        }
        Client client = clients.get(p);
        String base = t.base();
        boolean http2 = p != Protocol.HTTP_1_1;
        return switch (c) {
            case "file" -> client.get(base + t.filePath()).send().thenApply(r -> checkFile(t, p.version, r));
            case "echo" -> client.post(base + "/echo").header("Content-Type", "application/octet-stream")
                    .body(new ByteArrayInputStream(echo), echo.length).send().thenApply(r -> checkEcho(p.version, r));
            case "concurrent" -> concurrently(client, t, p);
            default -> {
                CompletionStage<String> chain = CompletableFuture.completedFuture("ok");
                for (int i = 0; i < 3; i++) {
                    chain = chain.thenCompose(previous -> previous.startsWith("ok")
                            ? client.get(base + "/plaintext").send()
                                    .thenApply(r -> http2 ? oneConnection(client, t, checkHello(p.version, r)) : checkHello(p.version, r))
                            : CompletableFuture.completedFuture(previous));
                }
                yield chain;
            }
        };
    }

    /** {@value #CONCURRENT} {@code GET /plaintext} sent at once: every one answered, all on one connection. */
    private static CompletionStage<String> concurrently(Client client, Target t, Protocol p) {
        List<CompletableFuture<String>> answers = new ArrayList<>(CONCURRENT);
        for (int i = 0; i < CONCURRENT; i++) {
            answers.add(client.get(t.base() + "/plaintext").send().thenApply(r -> checkHello(p.version, r))
                    .exceptionally(failure -> "FAIL " + describe(failure)).toCompletableFuture());
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<String> failed = answers.stream().map(CompletableFuture::join).filter(a -> !a.startsWith("ok")).toList();
            return failed.isEmpty() ? oneConnection(client, t, "ok " + CONCURRENT + " of " + CONCURRENT + " answered 200 Hello in " + p.version)
                    : "FAIL " + failed.size() + " of " + CONCURRENT + " not answered, the first: " + failed.getFirst();
        });
    }

    /** {@code outcome}, if the client holds one connection to the target: HTTP/2 carries every request on one. */
    private static String oneConnection(Client client, Target t, String outcome) {
        if (!outcome.startsWith("ok")) {
            return outcome;
        }
        int open = 0;
        for (ClientPool pool : client.pools()) {
            if (pool.destination().equals(t.destination())) {
                open += pool.open();
            }
        }
        return open == 1 ? outcome + ", on 1 connection" : "FAIL " + open + " connections open to " + t.destination() + ", expected 1 (" + outcome + ")";
    }

    /** Asks this tool's own server to run the case on its loop (a plain GET over a socket). */
    private static String viaLoop(int port, String name, Protocol p, String c) {
        String target = "/run?target=" + URLEncoder.encode(name, StandardCharsets.UTF_8) + "&protocol="
                + URLEncoder.encode(p.label, StandardCharsets.UTF_8) + "&case=" + c;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = answer.indexOf("\r\n\r\n");
            return body < 0 ? "FAIL no answer from the loop's handler: " + answer : answer.substring(body + 4);
        } catch (IOException e) {
            return "FAIL " + e;
        }
    }

    /** FAIL when the response is not in {@code version}: a fallback to HTTP/1.1 must not pass for HTTP/2. */
    private static String checkVersion(String version, ClientResponse r) {
        return r.version().equals(version) ? null : "FAIL answered in " + r.version() + ", expected " + version + " (status " + r.status() + ")";
    }

    private static String checkFile(Target t, String version, ClientResponse r) {
        String wrong = checkVersion(version, r);
        if (wrong != null) {
            return wrong;
        }
        if (r.status() != 200) {
            return "FAIL status " + r.status();
        }
        byte[] file = t.file();
        byte[] body = r.bodyBytes();
        return Arrays.equals(body, file) ? "ok " + r.version() + " " + body.length + " bytes, crc " + crc(body)
                : "FAIL " + body.length + " bytes, crc " + crc(body) + ", expected " + file.length + " bytes, crc " + crc(file);
    }

    private String checkEcho(String version, ClientResponse r) {
        String wrong = checkVersion(version, r);
        if (wrong != null) {
            return wrong;
        }
        if (r.status() != 200) {
            return "FAIL status " + r.status();
        }
        byte[] body = r.bodyBytes();
        return Arrays.equals(body, echo) ? "ok " + r.version() + " " + body.length + " bytes echoed, crc " + crc(body)
                : "FAIL " + body.length + " bytes back, crc " + crc(body) + ", sent " + echo.length + ", crc " + crc(echo);
    }

    private static String checkHello(String version, ClientResponse r) {
        String wrong = checkVersion(version, r);
        if (wrong != null) {
            return wrong;
        }
        return r.status() == 200 && r.bodyText().startsWith("Hello") ? "ok " + r.version() + " " + r.status() + " " + r.bodyText().trim()
                : "FAIL " + r.status() + " " + r.bodyText();
    }

    private static String crc(byte[] b) {
        CRC32 crc = new CRC32();
        crc.update(b);
        return Long.toHexString(crc.getValue());
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof ClientException e ? e.reason() + ": " + e.getMessage() : cause.toString();
    }
}
