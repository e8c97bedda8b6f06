// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a case accepts from the server after it sent something wrong (RFC 9113 5.4): a connection
 * error (GOAWAY with one of the codes, then the close), a stream error (RST_STREAM with one of the
 * codes on the stream, the connection still answering), a bare close, or the frame ignored (a PING
 * still answered). Alternatives combine with {@link #or}, for the few places where the RFC allows
 * either.
 *
 * @param connectionCodes the GOAWAY codes accepted, empty for none
 * @param stream the stream a stream error must be on ({@link #CASE_STREAM}: the case's own)
 * @param streamCodes the RST_STREAM codes accepted, empty for none
 * @param closeAccepted whether a close without any GOAWAY passes
 * @param ignoredAccepted whether the frame may be ignored: a PING sent afterwards is answered
 */
public record Expectation(Set<ErrorCode> connectionCodes, int stream, Set<ErrorCode> streamCodes,
        boolean closeAccepted, boolean ignoredAccepted) {
    /** In a declared deviation: the stream of the case the deviation is declared for. */
    public static final int CASE_STREAM = -1;

    /**
     * A connection error: GOAWAY with one of {@code codes}, then the close.
     *
     * @param codes the codes accepted
     * @return the expectation
     */
    public static Expectation connectionError(ErrorCode... codes) {
        return new Expectation(set(codes), CASE_STREAM, Set.of(), false, false);
    }

    /**
     * A stream error: RST_STREAM on {@code stream} with one of {@code codes}, the connection still usable.
     *
     * @param stream the stream, or {@link #CASE_STREAM}
     * @param codes the codes accepted
     * @return the expectation
     */
    public static Expectation streamError(int stream, ErrorCode... codes) {
        return new Expectation(Set.of(), stream, set(codes), false, false);
    }

    /**
     * Either a stream error on {@code stream} or a connection error, with one of {@code codes}.
     *
     * @param stream the stream, or {@link #CASE_STREAM}
     * @param codes the codes accepted
     * @return the expectation
     */
    public static Expectation streamOrConnectionError(int stream, ErrorCode... codes) {
        return new Expectation(set(codes), stream, set(codes), false, false);
    }

    /**
     * The connection closed, after a GOAWAY with NO_ERROR or none.
     *
     * @return the expectation
     */
    public static Expectation close() {
        return new Expectation(Set.of(ErrorCode.NO_ERROR), CASE_STREAM, Set.of(), true, false);
    }

    /**
     * The frame ignored: the connection answers a PING afterwards, no error on it.
     *
     * @return the expectation
     */
    public static Expectation ignored() {
        return new Expectation(Set.of(), CASE_STREAM, Set.of(), false, true);
    }

    /**
     * This or {@code other}.
     *
     * @param other the alternative
     * @return an expectation accepting what either accepts
     */
    public Expectation or(Expectation other) {
        Set<ErrorCode> connection = union(connectionCodes, other.connectionCodes);
        Set<ErrorCode> streams = union(streamCodes, other.streamCodes);
        int on = streamCodes.isEmpty() ? other.stream : stream;
        return new Expectation(connection, on, streams, closeAccepted || other.closeAccepted,
                ignoredAccepted || other.ignoredAccepted);
    }

    /**
     * This expectation with {@link #CASE_STREAM} replaced by {@code caseStream}.
     *
     * @param caseStream the stream of the case
     * @return the bound expectation
     */
    public Expectation on(int caseStream) {
        return stream == CASE_STREAM ? new Expectation(connectionCodes, caseStream, streamCodes, closeAccepted, ignoredAccepted) : this;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (!connectionCodes.isEmpty()) {
            s.append("GOAWAY then close ").append(connectionCodes);
        }
        if (!streamCodes.isEmpty()) {
            s.append(s.isEmpty() ? "" : " or ").append("a stream error (RST_STREAM on stream ").append(stream).append(") ").append(streamCodes);
        }
        if (closeAccepted) {
            s.append(s.isEmpty() ? "" : " or ").append("a close without GOAWAY");
        }
        if (ignoredAccepted) {
            s.append(s.isEmpty() ? "" : " or ").append("the frame ignored (a PING still answered)");
        }
        return s.toString();
    }

    private static Set<ErrorCode> set(ErrorCode... codes) {
        return codes.length == 0 ? Set.of() : Set.copyOf(Arrays.asList(codes));
    }

    private static Set<ErrorCode> union(Set<ErrorCode> a, Set<ErrorCode> b) {
        EnumSet<ErrorCode> u = EnumSet.noneOf(ErrorCode.class);
        u.addAll(a);
        u.addAll(b);
        return Set.copyOf(u);
    }
}
