// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** HTTP/2 frames written by hand, as the h2c tests send them (prior knowledge, no HPACK encoder). */
final class RawH2c {
    private RawH2c() {
    }

    /** A GET header block for {@code path} on {@code 127.0.0.1}: indexed :method and :scheme, literal :path and :authority. */
    static byte[] getBlock(String path) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82); // :method GET
        block.write(0x86); // :scheme http
        literal(block, 4, path);
        literal(block, 1, "127.0.0.1");
        return block.toByteArray();
    }

    static void literal(ByteArrayOutputStream block, int nameIndex, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        block.write(nameIndex); // 0000xxxx: literal without indexing, name from the static table
        block.write(bytes.length); // shorter than 127: one byte, no Huffman
        block.writeBytes(bytes);
    }

    static void writeFrame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
        out.write(payload);
    }
}
