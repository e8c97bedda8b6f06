// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ContentEncoding;
import dev.spindle.core.exchange.RequestState;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RFC 9110 12.5.3 negotiation, row by row: what the server sends for each {@code Accept-Encoding}. */
class AcceptEncodingTest {
    /** The server's codings, in its order of preference. */
    private static final List<ContentEncoding> OFFERED = List.of(named("zstd"), named("gzip"), named("deflate"));

    private static ContentEncoding named(String name) {
        return new ContentEncoding() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public OutputStream encoder(OutputStream sink) {
                throw new UnsupportedOperationException();
            }
        };
    }

    static Stream<Arguments> table() {
        // field values (null: no field; several: several field lines), the coding sent, identity refused
        return Stream.of(
                Arguments.of(null, "identity", false),
                Arguments.of(new String[] {""}, "identity", false),
                Arguments.of(new String[] {"gzip"}, "gzip", false),
                Arguments.of(new String[] {"GZip"}, "gzip", false),
                Arguments.of(new String[] {"x-gzip"}, "gzip", false),
                Arguments.of(new String[] {"deflate, gzip"}, "gzip", false),
                Arguments.of(new String[] {"gzip, deflate, br, zstd"}, "zstd", false),
                Arguments.of(new String[] {"gzip;q=1.0, zstd;q=0.5"}, "gzip", false),
                Arguments.of(new String[] {"gzip ; q=0.5 , deflate;Q=0.6"}, "deflate", false),
                Arguments.of(new String[] {"gzip;q=0.5", "deflate;q=0.5"}, "gzip", false),
                Arguments.of(new String[] {"*"}, "zstd", false),
                Arguments.of(new String[] {"*;q=0.1, gzip"}, "gzip", false),
                Arguments.of(new String[] {"*, zstd;q=0"}, "gzip", false),
                Arguments.of(new String[] {"gzip;q=0"}, "identity", false),
                Arguments.of(new String[] {"gzip;q=0.000"}, "identity", false),
                Arguments.of(new String[] {"gzip;q=0.001"}, "gzip", false),
                Arguments.of(new String[] {"br"}, "identity", false),
                Arguments.of(new String[] {"identity"}, "identity", false),
                Arguments.of(new String[] {"gzip;q=0.5, identity"}, "identity", false),
                Arguments.of(new String[] {"gzip, identity;q=0.5"}, "gzip", false),
                Arguments.of(new String[] {"gzip, identity"}, "gzip", false),
                Arguments.of(new String[] {"gzip, identity;q=0"}, "gzip", true),
                Arguments.of(new String[] {"deflate, *;q=0"}, "deflate", true),
                Arguments.of(new String[] {"identity;q=0"}, "none", true),
                Arguments.of(new String[] {"*;q=0"}, "none", true),
                Arguments.of(new String[] {"br, identity;q=0"}, "none", true),
                Arguments.of(new String[] {"*;q=0, identity"}, "identity", false),
                // malformed elements are skipped, the rest still count
                Arguments.of(new String[] {"gzip;q=2, deflate"}, "deflate", false),
                Arguments.of(new String[] {"gzip;q=0.5000"}, "identity", false),
                Arguments.of(new String[] {"gzip;q=, deflate"}, "deflate", false),
                Arguments.of(new String[] {"gzip;q=1.5"}, "identity", false),
                Arguments.of(new String[] {"gzip;level=9"}, "gzip", false),
                Arguments.of(new String[] {"gzip\"x, deflate"}, "deflate", false),
                Arguments.of(new String[] {",, ,gzip,,"}, "gzip", false),
                Arguments.of(new String[] {"gzipx"}, "identity", false),
                Arguments.of(new String[] {"zst"}, "identity", false));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("table")
    void negotiates(String[] values, String sent, boolean identityRefused) {
        for (boolean nativeMemory : new boolean[] {false, true}) {
            int choice = AcceptEncoding.select(request(values, nativeMemory), OFFERED);
            String chosen = choice == AcceptEncoding.IDENTITY ? "identity" : choice == AcceptEncoding.NONE ? "none"
                    : OFFERED.get(choice & 0xFFFF).name();
            assertThat(chosen).as("native %s", nativeMemory).isEqualTo(sent);
            if (choice >= 0) {
                assertThat((choice & AcceptEncoding.IDENTITY_REFUSED) != 0).as("identity refused").isEqualTo(identityRefused);
            }
        }
    }

    /** A request whose header section is {@code Host} and one {@code Accept-Encoding} line per value, in heap or native memory. */
    static RequestState request(String[] values, boolean nativeMemory) {
        StringBuilder head = new StringBuilder("Host: x\r\n");
        if (values != null) {
            for (String v : values) {
                head.append("Accept-Encoding: ").append(v).append("\r\n");
            }
        }
        byte[] bytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        RequestState req = new RequestState();
        if (nativeMemory) {
            req.data = Arena.ofAuto().allocate(bytes.length + 3);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, req.data, 3, bytes.length);
            req.base = 3;
        } else {
            req.array = bytes;
            req.data = MemorySegment.ofArray(bytes);
        }
        int line = 0;
        for (int i = 0; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                int colon = line;
                while (bytes[colon] != ':') {
                    colon++;
                }
                int value = colon + 1;
                while (value < i && bytes[value] == ' ') {
                    value++;
                }
                req.addHeader(line, colon, value, i);
                line = i + 2;
            }
        }
        return req;
    }
}
