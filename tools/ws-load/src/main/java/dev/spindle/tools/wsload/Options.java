// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/** The command line, checked: a bad value is an {@link IllegalArgumentException} with the message to show. */
record Options(String mode, String host, int port, int connections, double duration, int windows, double warmup, int size,
        int inflight, int openConcurrency, double openTimeout, int threads, long pid, String out) {

    static final String USAGE = """
            usage: java -cp DIR dev.spindle.tools.wsload.WsLoad <echo|broadcast|sse> --port P [--host 127.0.0.1]
                   [--connections N (100)] [--duration SECONDS (10)] [--windows K (1)] [--warmup SECONDS (2)]
                   [--size BYTES (32)]
                   [--inflight K (4, broadcast/sse)] [--open-concurrency C (200)] [--open-timeout SECONDS (30)]
                   [--threads T (1)] [--pid SERVER_PID] [--out FILE.json]""";

    long openTimeoutNanos() {
        return (long) (openTimeout * 1e9);
    }

    boolean publishes() {
        return !mode.equals("echo");
    }

    /** The options, or null for --help. */
    static Options parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("a mode is required: echo, broadcast or sse");
        }
        String mode = null;
        String host = "127.0.0.1";
        int port = -1;
        int connections = 100;
        double duration = 10;
        int windows = 1;
        double warmup = 2;
        int size = 32;
        int inflight = 4;
        int openConcurrency = 200;
        double openTimeout = 30;
        int threads = 1;
        long pid = -1;
        String out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                return null;
            }
            if (!a.startsWith("--")) {
                if (mode != null) {
                    throw new IllegalArgumentException("unexpected argument '" + a + "'");
                }
                if (!a.equals("echo") && !a.equals("broadcast") && !a.equals("sse")) {
                    throw new IllegalArgumentException("the mode is echo, broadcast or sse, not '" + a + "'");
                }
                mode = a;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--host" -> host = v;
                case "--port" -> port = integer(a, v, 1, 65535);
                case "--connections" -> connections = integer(a, v, 1, Tracker.MAX_SUBSCRIBERS);
                case "--duration" -> duration = seconds(a, v, false);
                case "--windows" -> windows = integer(a, v, 1, 1000);
                case "--warmup" -> warmup = seconds(a, v, true);
                case "--size" -> size = integer(a, v, 1, 16 * 1024 * 1024);
                case "--inflight" -> inflight = integer(a, v, 1, 1 << 14);
                case "--open-concurrency" -> openConcurrency = integer(a, v, 1, 1 << 20);
                case "--open-timeout" -> openTimeout = seconds(a, v, false);
                case "--threads" -> threads = integer(a, v, 1, 256);
                case "--pid" -> pid = integer(a, v, 1, Integer.MAX_VALUE);
                case "--out" -> out = v;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (mode == null) {
            throw new IllegalArgumentException("a mode is required: echo, broadcast or sse");
        }
        if (port < 0) {
            throw new IllegalArgumentException("--port is required");
        }
        if (!mode.equals("echo") && size < Tracker.SEQ_WIDTH) {
            throw new IllegalArgumentException("--size must be at least " + Tracker.SEQ_WIDTH + " in " + mode + " (the sequence number)");
        }
        return new Options(mode, host, port, connections, duration, windows, warmup, size, inflight, openConcurrency,
                openTimeout, threads, pid, out);
    }

    private static int integer(String name, String v, int min, int max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, not '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ", not " + v);
        }
        return (int) n;
    }

    private static double seconds(String name, String v, boolean zeroOk) {
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a number of seconds, not '" + v + "'");
        }
        if (!Double.isFinite(d) || d < 0 || (d == 0 && !zeroOk) || d > 86_400) {
            throw new IllegalArgumentException(name + " must be " + (zeroOk ? "0" : "more than 0") + " to 86400 seconds, not " + v);
        }
        return d;
    }
}
