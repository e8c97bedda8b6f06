// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import java.util.Collection;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * The total timeouts of the calls a connection holds ({@link ClientRequest#deadline}): when the
 * first is due, and which are past theirs. A call whose streamed response has begun is past its
 * deadline's reach (the deadline bounds the wait for its head).
 */
final class CallDeadlines {
    private CallDeadlines() {
    }

    /** {@return the earliest deadline among {@code calls}, or {@code Long.MAX_VALUE}} */
    static long earliest(Collection<ClientCall> calls) {
        long earliest = Long.MAX_VALUE;
        for (ClientCall call : calls) {
            if (call.request.hasDeadline() && call.stream == null) {
                earliest = Math.min(earliest, call.request.deadline());
            }
        }
        return earliest;
    }

    /** {@return whether {@code call} is past its deadline at {@code now}} */
    static boolean due(ClientCall call, long now) {
        return call.request.hasDeadline() && call.stream == null && now - call.request.deadline() >= 0;
    }

    /** Removes the calls of {@code calls} past their deadline and hands each to {@code expired}. */
    static void expire(Collection<ClientCall> calls, long now, Consumer<ClientCall> expired) {
        for (Iterator<ClientCall> it = calls.iterator(); it.hasNext(); ) {
            ClientCall call = it.next();
            if (due(call, now)) {
                it.remove();
                expired.accept(call);
            }
        }
    }
}
