// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Netty reference's {@code POST /multipart} ({@link MultipartUploads}, Netty's
 * {@code HttpPostRequestDecoder}): the benchmark app's answer (fields, each file's size and SHA-256)
 * for uploads with a length and chunked, small and several MB, and the refusals.
 */
class NettyServerMultipartTest {
    private static final String BOUNDARY = "----spindleNettyTestBoundary3xQ";
    private static NettyServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() throws IOException {
        server = new NettyServer("127.0.0.1", 0, 1).start();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static byte[] body(byte[] file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nbench upload\r\n"
                + "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bench.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(file);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static String expected(byte[] file) throws Exception {
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file));
        return "{\"fields\":{\"title\":\"bench upload\"},\"files\":[{\"name\":\"file\",\"filename\":\"bench.bin\",\"size\":"
                + file.length + ",\"sha256\":\"" + sha + "\"}]}";
    }

    private static HttpResponse<String> post(String type, HttpRequest.BodyPublisher body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort() + "/multipart"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", type).POST(body).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] binary(int size) {
        byte[] file = new byte[size];
        new Random(size).nextBytes(file);   // CR, LF and dashes included
        return file;
    }

    @Test
    void answersTheFieldsAndTheStoredFilesDigestWithALength() throws Exception {
        for (int size : new int[] {0, 100, 16 * 1024 + 1, 3 * 1024 * 1024 + 7}) {
            byte[] file = binary(size);
            HttpResponse<String> response = post("multipart/form-data; boundary=" + BOUNDARY, HttpRequest.BodyPublishers.ofByteArray(body(file)));
            assertThat(response.statusCode()).as("size %d", size).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(response.body()).as("size %d", size).isEqualTo(expected(file));
        }
        // the decoder's temporary files (DiskFileUpload's FUp_ prefix) are deleted once answered
        assertThat(leftFiles()).isZero();
    }

    private static long leftFiles() throws IOException {
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("FUp_")).count();
        }
    }

    @Test
    void answersAChunkedUploadCutIntoSmallPieces() throws Exception {
        byte[] file = binary(1024 * 1024 + 3);
        byte[] whole = body(file);
        // no length: the JDK client sends it chunked, in pieces of 1,000 bytes (boundaries cut anywhere)
        HttpRequest.BodyPublisher pieces = HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofByteArrays(() -> new java.util.Iterator<>() {
                    private int at;

                    @Override
                    public boolean hasNext() {
                        return at < whole.length;
                    }

                    @Override
                    public byte[] next() {
                        int n = Math.min(1000, whole.length - at);
                        byte[] piece = java.util.Arrays.copyOfRange(whole, at, at + n);
                        at += n;
                        return piece;
                    }
                }));
        HttpResponse<String> response = post("multipart/form-data; boundary=" + BOUNDARY, pieces);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(expected(file));
        // and the connection goes on
        assertThat(post("multipart/form-data; boundary=" + BOUNDARY, HttpRequest.BodyPublishers.ofByteArray(body(new byte[0]))).body())
                .isEqualTo(expected(new byte[0]));
    }

    @Test
    void refusesWhatIsNoMultipartUpload() throws Exception {
        assertThat(post("application/octet-stream", HttpRequest.BodyPublishers.ofString("x")).statusCode()).isEqualTo(415);
        byte[] truncated = java.util.Arrays.copyOf(body(binary(5000)), 3000);
        assertThat(post("multipart/form-data; boundary=" + BOUNDARY, HttpRequest.BodyPublishers.ofByteArray(truncated)).statusCode())
                .isEqualTo(400);
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.address().getPort() + "/multipart")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("allow")).hasValue("POST");
    }
}
