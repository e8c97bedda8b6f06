// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link LayeredConnection} that passes every call on to a real one (so HTTP/1.1 still works
 * through it) and records, in order, the protocols it is told and the plaintext it receives: what
 * the TLS layer tells the connection inside it, and when.
 */
final class RecordingConnection implements LayeredConnection {
    private final LayeredConnection inner;
    /** {@code "protocol <p>"} for each {@link #applicationProtocol} call, {@code "received <n>"} for each plaintext handed over. */
    final List<String> events = new ArrayList<>();
    /** The arguments of every {@link #applicationProtocol} call. */
    final List<String> protocols = new ArrayList<>();

    RecordingConnection(LayeredConnection inner) {
        this.inner = inner;
    }

    @Override
    public void applicationProtocol(String protocol) {
        protocols.add(protocol);
        events.add("protocol " + protocol);
        inner.applicationProtocol(protocol);
    }

    @Override
    public Next received(ByteBuffer src) {
        events.add("received " + src.remaining());
        return inner.received(src);
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        events.add("received " + length);
        return inner.received(memory, offset, length);
    }

    @Override
    public void inputActivity() {
        inner.inputActivity();
    }

    @Override
    public void outputActivity() {
        inner.outputActivity();
    }

    @Override
    public void refuse(int status, String message) {
        inner.refuse(status, message);
    }

    @Override
    public void inputFailed() {
        inner.inputFailed();
    }

    @Override
    public boolean hasOutbound() {
        return inner.hasOutbound();
    }

    @Override
    public boolean outputFinished() {
        return inner.outputFinished();
    }

    @Override
    public boolean aborted() {
        return inner.aborted();
    }

    @Override
    public void abort() {
        inner.abort();
    }

    @Override
    public void transferFiles(boolean on) {
        inner.transferFiles(on);
    }

    @Override
    public Next endOfInput() {
        return inner.endOfInput();
    }

    @Override
    public Next resume() {
        return inner.resume();
    }

    @Override
    public Next next() {
        return inner.next();
    }

    @Override
    public State state() {
        return inner.state();
    }

    @Override
    public ByteBuffer outbound() {
        return inner.outbound();
    }

    @Override
    public FileRegion outboundFile() {
        return inner.outboundFile();
    }

    @Override
    public Next written(int bytes) {
        return inner.written(bytes);
    }

    @Override
    public void closeAfterResponse() {
        inner.closeAfterResponse();
    }

    @Override
    public void drain() {
        inner.drain();
    }

    @Override
    public Next tick(long now) {
        return inner.tick(now);
    }

    @Override
    public long nanosToTick(long now) {
        return inner.nanosToTick(now);
    }

    @Override
    public void closed() {
        inner.closed();
    }
}
