// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU readings: the server's from /proc (utime+stime in clock ticks, and the threads' schedstat
 * nanoseconds, exact but blind to threads that ended between two readings) and this process's own.
 */
final class ServerCpu {
    /** One reading; server fields are -1 without a pid. */
    record Sample(long nanos, long ticks, long schedNanos, int threads, long clientNanos) {
    }

    private final long pid;
    final long clockTicks;

    ServerCpu(long pid) {
        this.pid = pid;
        this.clockTicks = pid > 0 ? clockTicks() : 100;
    }

    /** Whether the pid's /proc entries can be read (checked before the run). */
    static boolean readable(long pid) {
        try {
            ticks(pid);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    Sample sample() {
        long ticks = -1;
        long sched = -1;
        int threads = -1;
        if (pid > 0) {
            try {
                ticks = ticks(pid);
                long sum = 0;
                int n = 0;
                try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
                    for (Path task : tasks) {
                        try {
                            String s = Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII).trim();
                            int sp = s.indexOf(' ');
                            sum += Long.parseLong(sp < 0 ? s : s.substring(0, sp));
                            n++;
                        } catch (IOException e) {
                            // The thread ended while the directory was read: its time is lost either way.
                        }
                    }
                }
                sched = sum;
                threads = n;
            } catch (IOException | RuntimeException e) {
                ticks = -1;
            }
        }
        return new Sample(System.nanoTime(), ticks, sched, threads, clientCpuNanos());
    }

    static long clientCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static long ticks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        // The command name (field 2) may hold spaces and parentheses: count fields from its last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}
