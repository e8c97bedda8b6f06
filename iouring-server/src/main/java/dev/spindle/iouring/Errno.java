// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * {@code errno} for the libc calls whose failures the server reports, which jextract's bindings do
 * not capture (the JVM may change errno between two downcalls): {@link #capturing} links a
 * generated function again with {@code Linker.Option.captureCallState("errno")}, and
 * {@link #check} runs a call through it and turns {@code -1} into an {@link IOException} with
 * {@code strerror(errno)}.
 */
@SuppressWarnings("restricted") // FFM: linking downcalls
final class Errno {
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** Each thread's capture buffer (the callers are a few platform threads: the starter, ring threads). */
    private static final ThreadLocal<MemorySegment> CAPTURED = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(STATE));
    private static final MethodHandle CAPTURED_STATE;

    static {
        try {
            CAPTURED_STATE = MethodHandles.lookup().findStatic(Errno.class, "captured", MethodType.methodType(MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A libc call through a {@link #capturing} handle: {@code () -> (int) HANDLE.invokeExact(args...)}. */
    @FunctionalInterface
    interface Call {
        int invoke() throws Throwable;
    }

    private Errno() {
    }

    private static MemorySegment captured() {
        return CAPTURED.get();
    }

    /**
     * The generated function at {@code address} with {@code descriptor} (its {@code $address()} and
     * {@code $descriptor()}), linked so that it records this thread's errno; same type as the
     * generated {@code $handle()}.
     */
    static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        MethodHandle handle = Linker.nativeLinker().downcallHandle(address, descriptor, Linker.Option.captureCallState("errno"));
        return MethodHandles.collectArguments(handle, 0, CAPTURED_STATE);
    }

    /**
     * Runs {@code call}; returns its result, or throws {@code what: strerror(errno)} if it is negative.
     *
     * @throws IOException when the call fails
     */
    static int check(String what, Call call) throws IOException {
        int ret;
        try {
            ret = call.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (ret < 0) {
            throw new IOException(what + ": " + describe((int) ERRNO.get(CAPTURED.get(), 0L)));
        }
        return ret;
    }

    /** {@code strerror} as a Java string, e.g. "Connection reset by peer". */
    static String describe(int errnum) {
        MemorySegment s = Libc.strerror(errnum);
        return s.address() == 0 ? "errno " + errnum : s.getString(0);
    }
}
