// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

/**
 * The conformance check of a running server over the network: runs {@link NetworkConformanceSuite}
 * against it on the JUnit Platform and reports every case as passed, failed or skipped.
 *
 * <pre>ConformanceCheck [--tls] [--h2] HOST:PORT OUT_FILE</pre>
 *
 * <p>Writes OUT_FILE as TSV ({@code case\tstatus\tmessage\trule}; status {@code passed}, {@code failed}
 * or {@code skipped}; the message is the failure's, or the reason for a skip, on one line; rule
 * {@code rfc9112} or {@code contract}, see {@link Rule}), prints
 * the failed cases, then {@code passed/total} as its last line (total = passed + failed). Exit
 * status: 0 every case run passed, 1 some failed, 2 it could not run (bad arguments, target
 * unreachable).
 *
 * <p>The system property {@value #BUDGET_PROPERTY} (seconds, default 60) bounds the run: cases not
 * started when it is spent are skipped, saying so, and the ones already running end by their own
 * timeouts.
 */
public final class ConformanceCheck {
    /** How one case went. */
    public enum Status {
        PASSED, FAILED, SKIPPED;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What a case holds the server to: the tag {@link HttpConformanceSuite#RFC9112} on its method says which. */
    public enum Rule {
        /** Every assertion of the case is an RFC 9110/9112 requirement: failing it is wrong for any client. */
        RFC9112,
        /** The case checks Spindle's own stricter contract, which the RFC allows a server to answer otherwise. */
        CONTRACT;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One case of the suite: its test method, followed by the invocation's name in brackets for a
     * parameterized one.
     *
     * @param name the case, unique in a run
     * @param status how it went
     * @param message the failure, or why it was skipped, on one line; empty when it passed
     * @param rule what the case holds the server to
     */
    public record CaseResult(String name, Status status, String message, Rule rule) {
    }

    /** The check could not judge the target: it is unreachable, or the suite could not start. */
    public static final class CannotRun extends Exception {
        CannotRun(String message) {
            super(message);
        }
    }

    /** The time budget of a run from the command line, in seconds. */
    public static final String BUDGET_PROPERTY = "spindle.conformance.budgetSeconds";

    /** Longer failure messages are cut: a byte-array mismatch prints both arrays. */
    private static final int MAX_MESSAGE = 300;

    private ConformanceCheck() {
    }

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /**
     * The command line's work, for {@link #main} and tests.
     *
     * @return the exit status: 0 all passed, 1 some failed, 2 could not run
     */
    static int run(List<String> args, PrintStream out, PrintStream err) {
        List<String> positional = new ArrayList<>(args);
        boolean tls = positional.remove("--tls");
        boolean h2 = positional.remove("--h2");
        if (positional.size() != 2 || positional.getFirst().startsWith("-")) {
            err.println("usage: ConformanceCheck [--tls] [--h2] HOST:PORT OUT_FILE");
            return 2;
        }
        String target = positional.get(0);
        Path outFile = Path.of(positional.get(1));
        Duration budget = Duration.ofSeconds(Long.getLong(BUDGET_PROPERTY, 60));
        List<CaseResult> results;
        try {
            results = check(target, tls, h2, budget);
        } catch (CannotRun e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        try {
            writeTsv(outFile, results);
        } catch (IOException e) {
            err.println("error: cannot write " + outFile + ": " + e.getMessage());
            return 2;
        }
        long passed = count(results, Status.PASSED);
        long failed = count(results, Status.FAILED);
        for (CaseResult r : results) {
            if (r.status() == Status.FAILED) {
                out.println("FAILED " + r.name() + ": " + r.message());
            }
        }
        out.println("conformance of " + target + (tls ? " (TLS)" : "") + (h2 ? " (HTTP/2 too)" : "") + ": " + passed + " passed, " + failed
                + " failed, " + count(results, Status.SKIPPED) + " skipped; every case in " + outFile);
        out.println(passed + "/" + (passed + failed));
        return failed == 0 ? 0 : 1;
    }

    /**
     * Runs every case of {@link NetworkConformanceSuite} against {@code target}.
     *
     * @param target {@code HOST:PORT}
     * @param tls whether the target speaks HTTPS
     * @param budget how long cases may start for; the later ones are skipped
     * @return every case in the order it ran: by test method name
     * @throws CannotRun if the target is unreachable or the suite could not start on it
     */
    public static List<CaseResult> check(String target, boolean tls, Duration budget) throws CannotRun {
        return check(target, tls, false, budget);
    }

    /**
     * As {@link #check(String, boolean, Duration)}, with the HTTP/2 sections when {@code h2}.
     *
     * @param target {@code HOST:PORT}
     * @param tls whether the target speaks HTTPS
     * @param h2 whether the target speaks HTTP/2 (h2c with prior knowledge, or h2 by ALPN over TLS)
     * @param budget how long cases may start for; the later ones are skipped
     * @return every case in the order it ran: by test method name
     * @throws CannotRun if the target is unreachable or the suite could not start on it
     */
    public static List<CaseResult> check(String target, boolean tls, boolean h2, Duration budget) throws CannotRun {
        probe(target);
        long deadline = System.currentTimeMillis() + budget.toMillis();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(NetworkConformanceSuite.class))
                .configurationParameter(NetworkConformanceSuite.TARGET_PARAMETER, target)
                .configurationParameter(NetworkConformanceSuite.TLS_PARAMETER, Boolean.toString(tls))
                .configurationParameter(NetworkConformanceSuite.H2_PARAMETER, Boolean.toString(h2))
                .configurationParameter(NetworkConformanceSuite.DEADLINE_PARAMETER, Long.toString(deadline))
                // by name, so runs list their cases in the same order and compare line by line
                .configurationParameter("junit.jupiter.testmethod.order.default", "org.junit.jupiter.api.MethodOrderer$MethodName")
                .build();
        Recorder recorder = new Recorder();
        LauncherFactory.create().execute(request, recorder);
        if (recorder.broken != null) {
            throw new CannotRun(recorder.broken);
        }
        if (recorder.results.isEmpty()) {
            throw new CannotRun("no case of " + NetworkConformanceSuite.class.getSimpleName() + " ran");
        }
        return List.copyOf(recorder.results);
    }

    /** Fails fast, with a plain message, on a target that does not parse or accept connections. */
    private static void probe(String target) throws CannotRun {
        int colon = target.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new CannotRun("the target must be HOST:PORT, not '" + target + "'");
        }
        String host = target.substring(0, Math.max(colon, 0)).replace("[", "").replace("]", "");
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new CannotRun("the target must be HOST:PORT, not '" + target + "'");
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5000);
        } catch (IOException e) {
            throw new CannotRun("cannot connect to " + target + ": " + e);
        }
    }

    private static long count(List<CaseResult> results, Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** Writes the results as {@code case\tstatus\tmessage\trule} lines under that header. */
    public static void writeTsv(Path file, List<CaseResult> results) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("case\tstatus\tmessage\trule");
        for (CaseResult r : results) {
            lines.add(oneLine(r.name()) + "\t" + r.status().label() + "\t" + oneLine(r.message()) + "\t" + r.rule().label());
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Whitespace runs (tabs and line breaks included) as one space, control characters shown as {@code ?}. */
    static String oneLine(String text) {
        String flat = text.strip().replaceAll("\\s+", " ").replaceAll("\\p{Cntrl}", "?");
        return flat.length() <= MAX_MESSAGE ? flat : flat.substring(0, MAX_MESSAGE - 1) + "…";
    }

    /** Collects the cases as they finish; a class that cannot run makes the whole check void. */
    private static final class Recorder implements TestExecutionListener {
        final List<CaseResult> results = Collections.synchronizedList(new ArrayList<>());
        volatile String broken;

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (isSuiteClass(id)) {
                broken = "the suite was skipped: " + reason;
                return;
            }
            // a skipped parameterized method never produces its invocations: one case stands for them
            if (id.getSource().filter(MethodSource.class::isInstance).isPresent()) {
                results.add(new CaseResult(name(id), Status.SKIPPED, oneLine(reason), rule(id)));
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Optional<Throwable> thrown = result.getThrowable();
            if (isSuiteClass(id) && result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                broken = "the suite could not run against the target: " + thrown.map(ConformanceCheck::describe).orElse("no reason given");
                return;
            }
            if (!id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                return;
            }
            if (!id.isTest() && id.getSource().filter(MethodSource.class::isInstance).isEmpty()) {
                return;
            }
            Status status = switch (result.getStatus()) {
                case SUCCESSFUL -> Status.PASSED;
                case ABORTED -> Status.SKIPPED;
                case FAILED -> Status.FAILED;
            };
            results.add(new CaseResult(name(id), status, thrown.map(ConformanceCheck::describe).orElse(""), rule(id)));
        }

        private static boolean isSuiteClass(TestIdentifier id) {
            return id.getSource().filter(ClassSource.class::isInstance).isPresent();
        }

        /** A parameterized method's invocations carry the method's tags; a table whose rows differ says which rows are the RFC's. */
        private static Rule rule(TestIdentifier id) {
            boolean tagged = id.getTags().stream().anyMatch(t -> t.getName().equals(HttpConformanceSuite.RFC9112));
            String method = id.getSource().filter(MethodSource.class::isInstance).map(s -> ((MethodSource) s).getMethodName()).orElse("");
            return tagged || HttpConformanceSuite.rfc9112Row(method, id.getDisplayName()) ? Rule.RFC9112 : Rule.CONTRACT;
        }

        /** The test method's name, with the invocation's display name for a parameterized one. */
        private static String name(TestIdentifier id) {
            String method = id.getSource().filter(MethodSource.class::isInstance)
                    .map(s -> ((MethodSource) s).getMethodName()).orElse(id.getDisplayName());
            String display = id.getDisplayName();
            // JUnit names a plain test "method()" (with its parameter types), and quotes text arguments in an invocation's name
            return display.startsWith(method + "(") || !id.isTest() ? method : method + "[" + display.replace("\"", "") + "]";
        }
    }

    /** An assertion's message or a skip's reason as it is; any other throwable with its type, which says what went wrong. */
    private static String describe(Throwable t) {
        String message = t.getMessage() == null ? "" : t.getMessage();
        if (t instanceof TestAbortedException) {
            return oneLine(message.replaceFirst("^Assumption failed: ", ""));
        }
        if (t instanceof AssertionError && !message.isEmpty()) {
            return oneLine(message);
        }
        String text = t.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
        return oneLine(t.getCause() == null || message.contains(String.valueOf(t.getCause().getMessage())) ? text
                : text + " (caused by " + t.getCause() + ")");
    }
}
