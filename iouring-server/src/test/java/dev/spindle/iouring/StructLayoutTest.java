// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import dev.spindle.iouring.ffi.__kernel_timespec;
import dev.spindle.iouring.ffi.in6_addr;
import dev.spindle.iouring.ffi.in_addr;
import dev.spindle.iouring.ffi.io_cqring_offsets;
import dev.spindle.iouring.ffi.io_sqring_offsets;
import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_buf;
import dev.spindle.iouring.ffi.io_uring_buf_reg;
import dev.spindle.iouring.ffi.io_uring_buf_ring;
import dev.spindle.iouring.ffi.io_uring_cq;
import dev.spindle.iouring.ffi.io_uring_cqe;
import dev.spindle.iouring.ffi.io_uring_params;
import dev.spindle.iouring.ffi.io_uring_probe;
import dev.spindle.iouring.ffi.io_uring_probe_op;
import dev.spindle.iouring.ffi.io_uring_sq;
import dev.spindle.iouring.ffi.io_uring_sqe;
import dev.spindle.iouring.ffi.pollfd;
import dev.spindle.iouring.ffi.sockaddr_in6;
import dev.spindle.iouring.ffi.sockaddr_in;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The jextract bindings against the C headers: a small C program compiled with gcc against
 * liburing-dev prints {@code sizeof}, {@code offsetof} and constant values; every struct class's
 * {@code sizeof()} and {@code <field>$offset()}, and every constant method, must match (and
 * {@code scripts/jextract-liburing.sh --check} keeps the bindings what jextract generates). Needs
 * {@code gcc} and {@code liburing-dev}; without them it fails and says so (it does not skip).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class StructLayoutTest {
    private static final Path SOURCE = Path.of("src/test/c/struct_layouts.c");
    private static final Path BINARY = Path.of("target/struct-layouts");
    private static final List<Class<?>> STRUCTS = List.of(
            io_uring_sqe.class, io_uring_cqe.class, io_sqring_offsets.class, io_cqring_offsets.class,
            io_uring_params.class, io_uring_sq.class, io_uring_cq.class, io_uring.class, io_uring_buf.class,
            io_uring_buf_ring.class, io_uring_buf_reg.class, __kernel_timespec.class, io_uring_probe_op.class,
            io_uring_probe.class, in_addr.class, in6_addr.class, sockaddr_in.class, sockaddr_in6.class, pollfd.class);

    /** "sizeof s", "offsetof s f", "const H C" -> value. */
    private final Map<String, Long> c = new TreeMap<>();

    @BeforeAll
    void compileAndRun() throws Exception {
        if (!Files.isRegularFile(Path.of("/usr/include/liburing.h"))) {
            fail("the struct layout test needs the liburing headers: /usr/include/liburing.h is missing"
                    + " (Debian: apt-get install liburing-dev gcc)");
        }
        Files.createDirectories(BINARY.getParent());
        List<String> compile = List.of("gcc", "-std=gnu11", "-Wall", "-Werror", "-o", BINARY.toString(), SOURCE.toString());
        Output built;
        try {
            built = run(compile);
        } catch (IOException e) {
            fail("the struct layout test needs gcc, which cannot be run (" + e.getMessage() + "); Debian: apt-get install gcc liburing-dev");
            return;
        }
        if (built.status != 0) {
            fail("gcc failed to compile " + SOURCE + " against liburing-dev (status " + built.status + "):\n" + built.text);
        }
        Output out = run(List.of(BINARY.toAbsolutePath().toString()));
        assertThat(out.status).as("exit status of %s", BINARY).isZero();
        for (String line : out.text.split("\n")) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "sizeof" -> c.put("sizeof " + f[1], Long.parseLong(f[2]));
                case "offsetof" -> c.put("offsetof " + f[1] + " " + f[2], Long.parseLong(f[3]));
                case "const" -> c.put("const " + f[1] + " " + f[2], Long.parseLong(f[3]));
                case "" -> { }
                default -> fail("unexpected line from " + BINARY + ": " + line);
            }
        }
    }

    private record Output(int status, String text) {
    }

    private static Output run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] text = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " did not finish within 60 s");
        }
        return new Output(p.exitValue(), new String(text, StandardCharsets.UTF_8));
    }

    @Test
    void everyStructHasTheSizeAndFieldOffsetsOfTheCHeader() throws Exception {
        List<String> mismatches = new ArrayList<>();
        TreeSet<String> javaKeys = new TreeSet<>();
        for (Class<?> struct : STRUCTS) {
            String name = struct.getSimpleName();
            long size = (long) struct.getMethod("sizeof").invoke(null);
            javaKeys.add("sizeof " + name);
            compare(mismatches, "sizeof " + name, size);
            for (Method m : struct.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) && m.getName().endsWith("$offset") && m.getParameterCount() == 0) {
                    String field = m.getName().substring(0, m.getName().length() - "$offset".length());
                    String key = "offsetof " + name + " " + field;
                    javaKeys.add(key);
                    compare(mismatches, key, (long) m.invoke(null));
                }
            }
        }
        assertThat(mismatches).as("Java layouts that differ from the C headers").isEmpty();
        TreeSet<String> cKeys = new TreeSet<>(c.keySet());
        cKeys.removeIf(k -> k.startsWith("const "));
        assertThat(javaKeys).as("struct fields printed by the C program and modelled in Java").isEqualTo(cKeys);
    }

    @Test
    void everyConstantHasTheValueOfTheCHeader() throws Exception {
        List<String> mismatches = new ArrayList<>();
        TreeSet<String> javaKeys = new TreeSet<>();
        for (Class<?> header : List.of(LibUring.class, Libc.class)) {
            for (Method m : header.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0
                        && m.getReturnType() == int.class && m.getName().matches("[A-Z][A-Z0-9_]+")) {
                    String key = "const " + header.getSimpleName() + " " + m.getName();
                    javaKeys.add(key);
                    compare(mismatches, key, (int) m.invoke(null));
                }
            }
        }
        assertThat(mismatches).as("constants that differ from the C headers").isEmpty();
        TreeSet<String> cKeys = new TreeSet<>(c.keySet());
        cKeys.removeIf(k -> !k.startsWith("const "));
        assertThat(javaKeys).as("constants printed by the C program and defined in Java").isEqualTo(cKeys);
    }

    private void compare(List<String> mismatches, String key, long javaValue) {
        Long cValue = c.get(key);
        if (cValue == null) {
            mismatches.add(key + ": not printed by " + SOURCE);
        } else if (cValue != javaValue) {
            mismatches.add(key + ": C " + cValue + ", Java " + javaValue);
        }
    }
}
