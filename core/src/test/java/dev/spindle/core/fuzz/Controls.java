// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The fixed block of control bytes at the end of a fuzz input; everything before it is the byte
 * stream under test. {@link FuzzedDataProvider} reads integers from the end of the input and bytes
 * from the front, so taking the controls first leaves the stream intact, and a seed is a plain
 * request followed by {@value #SIZE} bytes ({@code scripts/lib/fuzz-seeds.py} writes the committed
 * ones). All-zero controls mean "defaults, fed whole".
 *
 * <p>Byte 0 holds flags, bytes 1-8 four cut points (16-bit fractions of the stream length), the
 * rest small numbers whose meaning each test documents.
 */
final class Controls {
    static final int SIZE = 16;
    private static final int CUTS = 4;

    private final int[] bytes;

    private Controls(int[] bytes) {
        this.bytes = bytes;
    }

    static Controls take(FuzzedDataProvider data) {
        int[] b = new int[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = data.consumeInt(0, 255);
        }
        return new Controls(b);
    }

    boolean flag(int bit) {
        return (bytes[0] >>> bit & 1) != 0;
    }

    int unsigned(int index) {
        return bytes[index];
    }

    /** The stream cut at the control's points (zero-length pieces dropped); a single piece when they are all 0. */
    List<byte[]> pieces(byte[] stream) {
        TreeSet<Integer> at = new TreeSet<>();
        for (int i = 0; i < CUTS; i++) {
            int fraction = bytes[1 + 2 * i] << 8 | bytes[2 + 2 * i];
            at.add((int) ((long) fraction * stream.length >>> 16));
        }
        at.add(stream.length);
        List<byte[]> pieces = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            if (to > from) {
                pieces.add(Arrays.copyOfRange(stream, from, to));
                from = to;
            }
        }
        return pieces;
    }

    static List<byte[]> bytewise(byte[] stream) {
        List<byte[]> pieces = new ArrayList<>(stream.length);
        for (byte b : stream) {
            pieces.add(new byte[] {b});
        }
        return pieces;
    }
}
