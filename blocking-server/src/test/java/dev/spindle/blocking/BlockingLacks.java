package dev.spindle.blocking;

import dev.spindle.conformance.HttpConformanceSuite.Feature;
import java.util.Map;

/** What the blocking servers lack of the conformance suite's features, and why. */
final class BlockingLacks {
    static final Map<Feature, String> LACKS = Map.of(Feature.QUEUED_CONNECTIONS_AT_CLOSE,
            "close() closes the listening socket from the closing thread, and the kernel resets what the acceptor has not "
                    + "taken by then (what queued while the single thread served, or what a free acceptor was about to take): "
                    + "a java.net.ServerSocket cannot accept without blocking, to empty its queue first");

    private BlockingLacks() {
    }
}
