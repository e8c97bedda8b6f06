// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The raw requests the benchmarks feed, shared with the Netty anchor (netty-server's
 * {@code dev.spindle.netty.bench}) so both sides parse the very same bytes.
 */
public final class Requests {
    private Requests() {
    }

    /** What wrk sends for the plaintext scenario with a few common headers (TechEmpower style). */
    public static String wrkGet(String target) {
        return "GET " + target + " HTTP/1.1\r\n"
                + "Host: localhost:8080\r\n"
                + "User-Agent: wrk/4.2.0\r\n"
                + "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
                + "Connection: keep-alive\r\n"
                + "\r\n";
    }

    /** A GET as a current desktop browser sends it: 20 header fields. */
    public static String browserGet(String target) {
        return "GET " + target + " HTTP/1.1\r\n"
                + "Host: www.example.com\r\n"
                + "Connection: keep-alive\r\n"
                + "Cache-Control: max-age=0\r\n"
                + "sec-ch-ua: \"Chromium\";v=\"130\", \"Google Chrome\";v=\"130\", \"Not?A_Brand\";v=\"99\"\r\n"
                + "sec-ch-ua-mobile: ?0\r\n"
                + "sec-ch-ua-platform: \"Linux\"\r\n"
                + "Upgrade-Insecure-Requests: 1\r\n"
                + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36\r\n"
                + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7\r\n"
                + "Sec-Fetch-Site: same-origin\r\n"
                + "Sec-Fetch-Mode: navigate\r\n"
                + "Sec-Fetch-User: ?1\r\n"
                + "Sec-Fetch-Dest: document\r\n"
                + "Referer: https://www.example.com/\r\n"
                + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
                + "Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n"
                + "Cookie: session=6f1c2a9e8b7d4c3f; theme=dark; _ga=GA1.1.1234567890.1700000000\r\n"
                + "If-None-Match: \"5d8c72a5edda8\"\r\n"
                + "If-Modified-Since: Tue, 15 Oct 2024 07:28:00 GMT\r\n"
                + "Priority: u=0, i\r\n"
                + "\r\n";
    }

    /** {@code text} repeated {@code n} times back to back, as a pipelining client sends it. */
    public static String repeat(String text, int n) {
        return text.repeat(n);
    }

    /** A direct buffer holding {@code text}, as a socket read would leave it; rewind before each use. */
    public static ByteBuffer direct(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }
}
