// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.clientinterop;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
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
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@code /echo} and {@code /plaintext} on their own. One line per case on stderr, {@code ok} or
 * {@code FAIL}.
 *
 * <pre>ClientInterop --trust STORE --password PW --file PATH --served-at /files/big NAME=https://HOST:PORT ...
 *     [--file PATH2 --served-at /download NAME2=https://HOST:PORT ...]</pre>
 *
 * A target's file is the {@code --file} and {@code --served-at} given last before it: the proxies
 * serve a file of their own, a benchmark app its {@code /download}.
 *
 * Exit status: 0 every case passed, 1 one failed, 2 bad arguments.
 */
public final class ClientInterop {
    private static final int ECHO_BYTES = 512 * 1024;

    /** A server to call: its base address and the file it serves at {@code filePath}. */
    private record Target(String base, byte[] file, String filePath) {
    }

    private final Client client;
    private final byte[] echo;

    private ClientInterop(Client client) {
        this.client = client;
        this.echo = new byte[ECHO_BYTES];
        new Random(7).nextBytes(echo);
    }

    public static void main(String[] args) throws Exception {
        Path trust = null;
        String password = null;
        Path file = null;
        String servedAt = null;
        byte[] bytes = null;
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
                default -> {
                    int eq = args[i].indexOf('=');
                    if (eq <= 0) {
                        usage("not NAME=URL: " + args[i]);
                    }
                    if (file == null || servedAt == null) {
                        usage("--file and --served-at must come before the target " + args[i]);
                    }
                    if (targets.put(args[i].substring(0, eq), new Target(args[i].substring(eq + 1), bytes, servedAt)) != null) {
                        usage("two targets named " + args[i].substring(0, eq));
                    }
                }
            }
        }
        if (trust == null || password == null || targets.isEmpty()) {
            usage("--trust, --password and a target are needed");
        }
        try (Client client = Client.create(ClientConfig.defaults().responseTimeout(Duration.ofSeconds(10))
                .trustStore(trust, password.toCharArray()))) {
            System.exit(new ClientInterop(client).run(targets) ? 0 : 1);
        }
    }

    private static void usage(String why) {
        System.err.println("error: " + why);
        System.err.println("usage: ClientInterop --trust STORE --password PW {--file PATH --served-at PATH NAME=https://HOST:PORT ...} ...");
        System.exit(2);
    }

    private boolean run(Map<String, Target> targets) throws IOException {
        HttpServer loop = new MultiLoopServer(ServerConfig.defaults().port(0).workers(1), Router.builder()
                .get("/run", Handler.async((req, res) -> onLoop(targets.get(req.queryParam("target")), req.queryParam("case"))
                        .handle((outcome, failure) -> {
                            res.text(failure == null ? outcome : "FAIL " + describe(failure));
                            return null;
                        })))
                .build()).start();
        boolean passed = true;
        try {
            for (Map.Entry<String, Target> t : targets.entrySet()) {
                for (String c : List.of("file", "echo", "keep-alive")) {
                    passed &= report(t.getKey(), c, "blocking", blocking(t.getValue(), c));
                    passed &= report(t.getKey(), c, "event loop", viaLoop(loop.port(), t.getKey(), c));
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

    /** The case on this thread, with {@code call()}. */
    private String blocking(Target t, String c) {
        String base = t.base();
        try {
            return switch (c) {
                case "file" -> checkFile(t, client.get(base + t.filePath()).call());
                case "echo" -> checkEcho(client.post(base + "/echo").header("Content-Type", "application/octet-stream")
                        .body(new ByteArrayInputStream(echo), echo.length).call());
                default -> {
                    String last = "";
                    for (int i = 0; i < 3; i++) {
                        last = checkHello(client.get(base + "/plaintext").call());
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

    /** The case on the loop of this tool's server, with {@code send()}. */
    private CompletionStage<String> onLoop(Target t, String c) {
        String base = t.base();
        return switch (c) {
            case "file" -> client.get(base + t.filePath()).send().thenApply(r -> checkFile(t, r));
            case "echo" -> client.post(base + "/echo").header("Content-Type", "application/octet-stream")
                    .body(new ByteArrayInputStream(echo), echo.length).send().thenApply(this::checkEcho);
            default -> {
                CompletionStage<String> chain = CompletableFuture.completedFuture("ok");
                for (int i = 0; i < 3; i++) {
                    chain = chain.thenCompose(previous -> previous.startsWith("ok")
                            ? client.get(base + "/plaintext").send().thenApply(ClientInterop::checkHello)
                            : CompletableFuture.completedFuture(previous));
                }
                yield chain;
            }
        };
    }

    /** Asks this tool's own server to run the case on its loop (a plain GET over a socket). */
    private static String viaLoop(int port, String name, String c) {
        String target = "/run?target=" + URLEncoder.encode(name, StandardCharsets.UTF_8) + "&case=" + c;
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

    private static String checkFile(Target t, ClientResponse r) {
        if (r.status() != 200) {
            return "FAIL status " + r.status();
        }
        byte[] file = t.file();
        byte[] body = r.bodyBytes();
        return Arrays.equals(body, file) ? "ok " + body.length + " bytes, crc " + crc(body)
                : "FAIL " + body.length + " bytes, crc " + crc(body) + ", expected " + file.length + " bytes, crc " + crc(file);
    }

    private String checkEcho(ClientResponse r) {
        if (r.status() != 200) {
            return "FAIL status " + r.status();
        }
        byte[] body = r.bodyBytes();
        return Arrays.equals(body, echo) ? "ok " + body.length + " bytes echoed, crc " + crc(body)
                : "FAIL " + body.length + " bytes back, crc " + crc(body) + ", sent " + echo.length + ", crc " + crc(echo);
    }

    private static String checkHello(ClientResponse r) {
        return r.status() == 200 && r.bodyText().startsWith("Hello") ? "ok " + r.status() + " " + r.bodyText().trim()
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
