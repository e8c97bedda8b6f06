package dev.spindle.core;

/** Answers one request by filling in the response. */
@FunctionalInterface
public interface Handler {
    void handle(Request request, Response response) throws Exception;

    /**
     * Marks a handler as blocking (sleeps, blocking I/O). Event-loop strategies then run it on a
     * virtual thread instead of the loop, and still answer pipelined requests in order.
     */
    static Handler blocking(Handler handler) {
        return new Blocking(handler);
    }

    /** A handler wrapped by {@link #blocking(Handler)}. */
    record Blocking(Handler delegate) implements Handler {
        @Override
        public void handle(Request request, Response response) throws Exception {
            delegate.handle(request, response);
        }
    }
}
