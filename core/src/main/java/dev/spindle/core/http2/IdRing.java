// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/** The last few stream ids something happened to, oldest forgotten first. */
final class IdRing {
    private final int[] ids;
    private int next;

    IdRing(int size) {
        this.ids = new int[size];
    }

    void add(int id) {
        ids[next] = id;
        next = (next + 1) % ids.length;
    }

    /** Whether {@code id} (never 0: no stream has it) is among the last ones added. */
    boolean contains(int id) {
        for (int i : ids) {
            if (i == id) {
                return true;
            }
        }
        return false;
    }
}
