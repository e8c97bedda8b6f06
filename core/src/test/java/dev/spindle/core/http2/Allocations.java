// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;

/**
 * Bytes the current thread allocates while running a piece of code, where the JVM can count them.
 * Reached by reflection: the tests compile inside core's module, which does not read java.management.
 */
final class Allocations {
    private Allocations() {
    }

    interface Body {
        void run() throws Exception;
    }

    static long of(Body body) throws Exception {
        Object threads;
        Method allocated;
        try {
            threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            assumeTrue(type.isInstance(threads), "this JVM does not count allocated bytes per thread");
            assumeTrue((Boolean) type.getMethod("isThreadAllocatedMemoryEnabled").invoke(threads),
                    "counting allocated bytes is off");
            allocated = type.getMethod("getThreadAllocatedBytes", long.class);
        } catch (ClassNotFoundException e) {
            assumeTrue(false, "this JVM does not count allocated bytes per thread");
            return 0;
        }
        long id = Thread.currentThread().threadId();
        long before = (Long) allocated.invoke(threads, id);
        body.run();
        return (Long) allocated.invoke(threads, id) - before;
    }
}
