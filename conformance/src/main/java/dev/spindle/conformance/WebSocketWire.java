// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * WebSocket frames on the wire, written and read by hand (RFC 6455 5.2), for tests that talk to a
 * server below any client library: the shared suite's cases and the references' own tests.
 */
public final class WebSocketWire {
    /** The masking key of every client frame made here: RFC 6455 5.3 asks for one, not for a random one. */
    private static final byte[] KEY = {0x37, (byte) 0xFA, 0x21, 0x3D};

    private WebSocketWire() {
    }

    /**
     * One frame of a server's.
     *
     * @param first its first byte: FIN, the RSV bits and the opcode
     * @param payload its payload
     */
    public record ServerFrame(int first, byte[] payload) {
        /** {@return the frame's opcode} */
        public int opcode() {
            return first & 0x0F;
        }

        /** {@return the payload as UTF-8} */
        public String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /**
     * A client's frame, masked as RFC 6455 5.3 requires of clients.
     *
     * @param first the first byte: FIN, the RSV bits and the opcode
     * @param payload the payload, of any length
     * @return the frame's bytes
     */
    public static byte[] clientFrame(int first, byte[] payload) {
        return frame(first, payload, true);
    }

    /**
     * A frame, masked or not (a server's frame is not; a client's unmasked frame is a protocol error).
     *
     * @param first the first byte: FIN, the RSV bits and the opcode
     * @param payload the payload, of any length
     * @param masked whether to mask it
     * @return the frame's bytes
     */
    public static byte[] frame(int first, byte[] payload, boolean masked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(first);
        int mask = masked ? 0x80 : 0;
        int length = payload.length;
        if (length < 126) {
            out.write(mask | length);
        } else if (length < 65536) {
            out.write(mask | 126);
            out.write(length >>> 8);
            out.write(length);
        } else {
            out.write(mask | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.write((int) ((long) length >>> shift));
            }
        }
        if (!masked) {
            out.writeBytes(payload);
            return out.toByteArray();
        }
        out.writeBytes(KEY);
        for (int i = 0; i < length; i++) {
            out.write(payload[i] ^ KEY[i & 3]);
        }
        return out.toByteArray();
    }

    /**
     * Reads one frame of a server's, which must not be masked.
     *
     * @param in the connection's input
     * @return the frame
     * @throws EOFException if the connection ends before the frame does
     */
    public static ServerFrame readServerFrame(InputStream in) throws IOException {
        int b0 = readByte(in);
        int b1 = readByte(in);
        assertThat(b1 & 0x80).as("a server's frame is not masked").isZero();
        long length = b1 & 0x7F;
        if (length == 126) {
            length = (readByte(in) << 8) | readByte(in);
        } else if (length == 127) {
            length = 0;
            for (int i = 0; i < 8; i++) {
                length = (length << 8) | readByte(in);
            }
        }
        byte[] payload = in.readNBytes((int) length);
        if (payload.length < length) {
            throw new EOFException("the connection ended inside a frame");
        }
        return new ServerFrame(b0, payload);
    }

    /**
     * Reads a response's head, through its blank line.
     *
     * @param in the connection's input
     * @return the head, as ISO-8859-1 text
     * @throws EOFException if the connection ends inside it
     */
    public static String readHead(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        while (s.length() < 4 || !s.substring(s.length() - 4).equals("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection ended in the head: " + s);
            }
            s.append((char) b);
        }
        return s.toString();
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("the connection ended before a frame");
        }
        return b;
    }
}
