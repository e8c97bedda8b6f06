// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A parsed request. Fields are offsets into the memory the request was parsed in (the
 * connection's buffer, or the strategy's receive buffer) and are decoded only when asked for. A handler must not keep the request after it returns; a blocking
 * handler receives a detached copy, which it may keep.
 */
public final class Request {
    static {
        new EngineAccess();
    }

    final RequestState state;

    Request(RequestState state) {
        this.state = state;
    }

    /**
     * The request method; {@link Method#OTHER} for a token the router does not know by name, whose
     * text {@link #methodName()} gives.
     *
     * @return the method, or null for a request nothing has been parsed into
     */
    public Method method() {
        return state.method;
    }

    /**
     * The method token as sent, for methods outside {@link Method}.
     *
     * @return the token, e.g. {@code GET} or {@code PROPFIND} (method tokens are case-sensitive)
     */
    public String methodName() {
        return state.method == Method.OTHER ? ascii(0, state.methodEnd) : state.method.name();
    }

    /**
     * The request target as sent, e.g. {@code /search?q=a%20b}.
     *
     * @return the target, still percent-encoded, query included; a new string on each call
     */
    public String target() {
        return ascii(state.targetStart, state.targetEnd);
    }

    /**
     * The path of the target, still percent-encoded, e.g. {@code /users/a%20b}.
     *
     * @return the path without the query, {@code /} when the target has no path; the same string
     *         on every call
     */
    public String path() {
        if (state.pathString == null) {
            state.pathString = state.pathEnd == state.pathStart ? "/" : ascii(state.pathStart, state.pathEnd);
        }
        return state.pathString;
    }

    /**
     * The raw query string without {@code ?}, or null when the target has none.
     *
     * @return the query, still percent-encoded; empty for a target ending in {@code ?}; null when
     *         there is no {@code ?}
     */
    public String query() {
        return state.queryStart < 0 ? null : ascii(state.queryStart, state.targetEnd);
    }

    /**
     * The protocol the request came on: {@code HTTP/1.1}, {@code HTTP/1.0} or {@code HTTP/2}.
     *
     * @return {@code "HTTP/1.1"}, {@code "HTTP/1.0"} or {@code "HTTP/2"}; a later HTTP/1.x minor
     *         version reads as HTTP/1.1, and the parser answers other major versions with 505
     */
    public String version() {
        return switch (state.version) {
            case RequestState.HTTP_1_0 -> "HTTP/1.0";
            case RequestState.HTTP_2 -> "HTTP/2";
            default -> "HTTP/1.1";
        };
    }

    /**
     * Whether the client asked to keep the connection open after this exchange: an HTTP/1.1 request
     * unless it sent {@code Connection: close}, an HTTP/1.0 one only with
     * {@code Connection: keep-alive}, and always an HTTP/2 one (its connection carries many streams). The server may still close it (a failure, a shutdown).
     *
     * @return true when the client asked for keep-alive
     */
    public boolean isKeepAliveRequested() {
        if (state.version == RequestState.HTTP_2) {
            return true;
        }
        return state.version == RequestState.HTTP_1_1 ? !state.connectionClose : state.connectionKeepAlive && !state.connectionClose;
    }

    /**
     * The first value of a query parameter, percent-decoded ({@code +} as space), or null.
     *
     * @param name the parameter's name, compared case-sensitively with each name once decoded
     * @return the decoded value (UTF-8), empty for {@code ?name} or {@code ?name=}; null when the
     *         parameter is absent or the target has no query
     * @throws HttpException 400 when the value's percent-encoding is malformed
     */
    public String queryParam(String name) {
        return queryValues(name, null);
    }

    /**
     * Scans the query for {@code name}: returns its first value when {@code all} is null, else
     * adds every value to {@code all} and returns null.
     */
    private String queryValues(String name, java.util.List<String> all) {
        if (state.queryStart < 0) {
            return null;
        }
        int end = state.targetEnd;
        int i = state.queryStart;
        while (i <= end) {
            int pairEnd = indexOf((byte) '&', i, end);
            int eq = indexOf((byte) '=', i, pairEnd);
            if (PercentDecoder.equalsDecoded(state.data, state.array, state.base + i, state.base + eq, name)) {
                String value = eq == pairEnd ? "" : PercentDecoder.decode(state.data, state.array, state.base + eq + 1, state.base + pairEnd, true);
                if (all == null) {
                    return value;
                }
                all.add(value);
            }
            i = pairEnd + 1;
        }
        return null;
    }

    /**
     * A path variable as a {@code type}: {@code int}, {@code long}, {@code double},
     * {@code boolean}, {@code UUID}, an enum (by name, any case), {@code Instant},
     * {@code LocalDate}, {@code String}, or a type the router has a
     * {@link Router.Builder#converter converter} for.
     *
     * @param <T> the type
     * @param name the variable's name in the route's pattern
     * @param type the type to convert to
     * @return the value
     * @throws HttpException 400 naming the parameter and the type expected, when the text is not such a value
     * @throws IllegalArgumentException when the route has no such variable, or nothing converts to {@code type}
     */
    public <T> T pathParam(String name, Class<T> type) {
        String text = pathParam(name);
        if (text == null) {
            throw new IllegalArgumentException("the route " + routePattern() + " has no variable " + name);
        }
        return Params.convert("path parameter '" + name + "'", text, type, converters());
    }

    /**
     * A query parameter that must be there, as a {@code type} (see {@link #pathParam(String, Class)}).
     *
     * @param <T> the type
     * @param name the parameter's name
     * @param type the type to convert to
     * @return the value of its first occurrence
     * @throws HttpException 400 when it is absent, or not such a value
     */
    public <T> T queryParam(String name, Class<T> type) {
        String text = queryParam(name);
        if (text == null) {
            throw Params.missing("query parameter '" + name + "'");
        }
        return Params.convert("query parameter '" + name + "'", text, type, converters());
    }

    /**
     * A query parameter as a {@code type}, or {@code defaultValue} when it is absent (see
     * {@link #pathParam(String, Class)}).
     *
     * @param <T> the type
     * @param name the parameter's name
     * @param type the type to convert to
     * @param defaultValue what an absent parameter is
     * @return the value of its first occurrence, or the default
     * @throws HttpException 400 when it is there and not such a value
     */
    public <T> T queryParam(String name, Class<T> type, T defaultValue) {
        String text = queryParam(name);
        return text == null ? defaultValue : Params.convert("query parameter '" + name + "'", text, type, converters());
    }

    /**
     * The body as an {@code application/x-www-form-urlencoded} form. A streamed body is collected
     * first, so an inline or asynchronous handler on an event loop must use
     * {@code readBody().thenApply(Form::parse)} instead.
     *
     * @return the form's fields
     * @throws HttpException 415 when the request's {@code Content-Type} is not that of a form, 400
     *         for a malformed escape, 413 for too many fields (or a body over its limit)
     */
    public Form form() {
        String type = header("Content-Type");
        int semicolon = type == null ? -1 : type.indexOf(';');
        String essence = type == null ? "" : (semicolon < 0 ? type : type.substring(0, semicolon)).trim();
        if (!essence.equalsIgnoreCase("application/x-www-form-urlencoded")) {
            throw new HttpException(415, "expected a form (application/x-www-form-urlencoded), got "
                    + (type == null ? "no Content-Type" : type));
        }
        return Form.parse(bodyBytes(), converters());
    }

    /**
     * The body as {@code multipart/form-data} (RFC 7578) within the default {@link MultipartOptions}:
     * its parts one by one as streams, or whole as a {@link MultipartForm} with files on disk, in
     * bounded memory whatever its size (see {@link Multipart}).
     *
     * @return a reader of the body, which nothing has read yet
     * @throws HttpException 415 when the {@code Content-Type} is not {@code multipart/form-data},
     *         400 when its boundary is missing or invalid
     */
    public Multipart multipart() {
        return Multipart.of(this, MultipartOptions.defaults());
    }

    /**
     * The body as {@code multipart/form-data} within {@code options} (see {@link #multipart()}).
     *
     * @param options the limits, and where the files of {@link Multipart#form()} go
     * @return a reader of the body, which nothing has read yet
     * @throws HttpException 415 for another {@code Content-Type}, 400 for a missing or invalid boundary
     */
    public Multipart multipart(MultipartOptions options) {
        return Multipart.of(this, options);
    }

    private java.util.Map<Class<?>, java.util.function.Function<String, ?>> converters() {
        return state.route == null ? null : state.route.converters;
    }

    /**
     * The pattern of the route that matched ({@code /users/{id}}), or null before routing and when
     * none did (a 404 or 405): a label of low cardinality for metrics.
     *
     * @return the pattern as registered, or null
     */
    public String routePattern() {
        return state.route == null || state.route.fallback ? null : state.route.pattern;
    }

    /**
     * The value of the cookie {@code name} the request carries (RFC 6265 5.4: {@code Cookie:
     * a=1; b=2}, over one field or several as HTTP/2 splits it), its surrounding double quotes
     * removed; the first when it is there more than once.
     *
     * @param name the cookie's name, compared exactly
     * @return the value, possibly empty, or null when there is no such cookie
     */
    public String cookie(String name) {
        return cookies(name, null);
    }

    /**
     * Every cookie the request carries, by name, in the order they came (the first of a name
     * repeated), values unquoted as {@link #cookie(String)} gives them.
     *
     * @return a new map, empty when there are none
     */
    public java.util.Map<String, String> cookies() {
        java.util.Map<String, String> all = new java.util.LinkedHashMap<>();
        cookies(null, all);
        return all;
    }

    /**
     * Scans the Cookie fields: returns the value of {@code name} when {@code all} is null, else
     * puts each name's first value into {@code all} and returns null.
     */
    private String cookies(String name, java.util.Map<String, String> all) {
        for (String field : headers("cookie")) {
            int start = 0;
            while (start < field.length()) {
                int end = field.indexOf(';', start);
                if (end < 0) {
                    end = field.length();
                }
                int eq = field.indexOf('=', start);
                if (eq > start && eq < end) {
                    String key = field.substring(start, eq).trim();
                    if (all == null ? key.equals(name) : !key.isEmpty() && !all.containsKey(key)) {
                        String value = field.substring(eq + 1, end).trim();
                        value = value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"'
                                ? value.substring(1, value.length() - 1) : value;
                        if (all == null) {
                            return value;
                        }
                        all.put(key, value);
                    }
                }
                start = end + 1;
            }
        }
        return null;
    }

    /**
     * Calls {@code callback} once this exchange has ended: after the last byte of its answer was
     * handed to the socket, or when it ended without one (the client went away, the stream was
     * reset). It sees the status actually sent, also when the connection answered instead of the
     * handler (a handler timeout's 503); so a filter that registers it before proceeding observes
     * every exchange exactly once, however the handler ends, or if it never does. Called on the
     * connection's thread: it must be quick and must not block. Callbacks run in the order they
     * were registered, after the router's {@link ExchangeListener}s; one registered after the
     * exchange ended (by a handler that outlived it) is called at once.
     *
     * @param callback receives the exchange's end, valid only during the call
     * @throws NullPointerException if {@code callback} is null
     */
    @SuppressWarnings("unchecked")
    public void onEnd(java.util.function.Consumer<? super ExchangeEnd> callback) {
        java.util.Objects.requireNonNull(callback, "callback");
        dev.spindle.core.exchange.EndRecord ended;
        // a handler off the connection's thread may register while the connection ends its exchange
        synchronized (state) {
            ended = state.endedWith;
            if (ended == null) {
                if (state.startNanos == 0) {
                    state.startNanos = System.nanoTime();
                }
                Object current = state.onEnd;
                if (current == null) {
                    state.onEnd = callback;
                } else if (current instanceof java.util.List<?> list) {
                    ((java.util.List<Object>) list).add(callback);
                } else {
                    java.util.List<Object> list = new java.util.ArrayList<>(2);
                    list.add(current);
                    list.add(callback);
                    state.onEnd = list;
                }
            }
        }
        if (ended != null) {
            ended.lateCallback(callback);
        }
    }

    /**
     * Every value of a query parameter, percent-decoded, in the order they appear ({@code ?tag=a&tag=b}
     * gives {@code [a, b]}); empty when it is absent. {@link #queryParam} gives the first.
     *
     * @param name the parameter's name, compared case-sensitively with each name once decoded
     * @return an unmodifiable list of the decoded values, an empty string for each occurrence
     *         without a value
     * @throws HttpException 400 when a value's percent-encoding is malformed
     */
    public java.util.List<String> queryParams(String name) {
        if (state.queryStart < 0) {
            return java.util.List.of();
        }
        java.util.List<String> values = new java.util.ArrayList<>(2);
        queryValues(name, values);
        return java.util.List.copyOf(values);
    }

    /**
     * A path variable of the matched route, percent-decoded, or null if the route has none by that
     * name. For a tail variable ({@code {path...}}) it is the rest of the path after the route's
     * prefix, slashes included, possibly empty.
     *
     * @param name the variable's name as in the route's pattern, e.g. {@code id} for
     *        {@code /users/{id}}
     * @return the decoded value (UTF-8; {@code +} stays a plus), or null when the route has no such
     *         variable or the request was not routed
     * @throws HttpException 400 when the value's percent-encoding is malformed
     */
    public String pathParam(String name) {
        if (state.route == null) {
            return null;
        }
        int index = state.route.paramIndex(name);
        if (index < 0) {
            return null;
        }
        return PercentDecoder.decode(state.data, state.array, state.base + state.params[index * 2], state.base + state.params[index * 2 + 1], false);
    }

    /**
     * The first value of a header, matched case-insensitively, or null.
     *
     * @param name the header's name, in any case
     * @return the value of the first field line with that name, Latin-1, without surrounding
     *         whitespace; null when the header is absent
     */
    public String header(String name) {
        int i = headerIndex(name, 0);
        return i < 0 ? null : headerValue(i);
    }

    /**
     * Every value of a header, matched case-insensitively, one entry per field line in the order
     * received (a comma-separated list in one line stays one entry); empty when absent.
     *
     * @param name the header's name, in any case
     * @return an unmodifiable list of the values, Latin-1, without surrounding whitespace
     */
    public java.util.List<String> headers(String name) {
        java.util.List<String> values = null;
        for (int h = headerIndex(name, 0); h >= 0; h = headerIndex(name, h + 1)) {
            if (values == null) {
                values = new java.util.ArrayList<>(2);
            }
            values.add(headerValue(h));
        }
        return values == null ? java.util.List.of() : java.util.List.copyOf(values);
    }

    /**
     * The number of header field lines received; a name sent twice counts twice. With
     * {@link #headerName(int)} and {@link #headerValue(int)} it walks every header in order.
     *
     * @return the count, 0 or more
     */
    public int headerCount() {
        return state.headerCount;
    }

    /**
     * The name of a header field line, as sent (its case kept).
     *
     * @param i the line's index in the order received, from 0 to {@link #headerCount()} - 1
     * @return the name, Latin-1
     */
    public String headerName(int i) {
        return ascii(state.headers[i * 4], state.headers[i * 4 + 1]);
    }

    /**
     * The value of a header field line.
     *
     * @param i the line's index in the order received, from 0 to {@link #headerCount()} - 1
     * @return the value, Latin-1, without surrounding whitespace; possibly empty
     */
    public String headerValue(int i) {
        return ascii(state.headers[i * 4 + 2], state.headers[i * 4 + 3]);
    }

    /** The index of the first header field named {@code name} (any case) at or after {@code from}, or -1. */
    private int headerIndex(String name, int from) {
        int len = name.length();
        for (int h = from; h < state.headerCount; h++) {
            int s = state.headers[h * 4];
            if (state.headers[h * 4 + 1] - s == len && Ascii.equalsIgnoreCase(state.data, state.base + s, name)) {
                return h;
            }
        }
        return -1;
    }

    /**
     * The length of the body: what arrived for a buffered body, the announced length (or -1 if chunked) for a streamed one.
     * Once a streamed body has been read whole (by {@link #body()}, {@link #bodyBytes()} or
     * {@link #bodyText()}), its actual length.
     *
     * @return the length in bytes, 0 for no body, or -1 for a streamed chunked body not yet read
     */
    public long bodyLength() {
        if (state.streamed != null) {
            return state.streamedBytes != null ? state.streamedBytes.length : state.streamed.length();
        }
        return state.bodyEnd - state.bodyStart;
    }

    /**
     * The whole body as a read-only view; for an inline handler valid until it returns (it may be
     * the strategy's buffer). For a streamed body (blocking handlers) it reads the rest of the
     * stream first, at most the route's {@link RouteOptions#maxBodySize} or else
     * {@link ServerConfig#maxBodySize()} bytes (more: a 413 {@link HttpException}).
     *
     * <p>An inline handler that answers with this very view ({@code res.body(req.body())}, an echo)
     * of 64 KiB or more has it written from where it arrived, without a copy.
     *
     * @return a read-only buffer from position 0 to the body's length; empty when there is no body
     * @throws IllegalStateException for a streamed body in an asynchronous handler (use {@link #readBody()})
     * @throws java.io.UncheckedIOException when reading a streamed body fails
     */
    public ByteBuffer body() {
        if (state.streamed != null) {
            return ByteBuffer.wrap(streamedBody()).asReadOnlyBuffer();
        }
        ByteBuffer view = state.data.asSlice(state.base + state.bodyStart, state.bodyEnd - state.bodyStart).asByteBuffer().asReadOnlyBuffer();
        state.bodyView = view;
        return view;
    }

    /**
     * The whole body as a new array, which the caller owns and may keep. The rules for a streamed
     * body are those of {@link #body()}.
     *
     * @return a copy of the body; empty when there is none
     * @throws IllegalStateException for a streamed body in an asynchronous handler (use {@link #readBody()})
     * @throws java.io.UncheckedIOException when reading a streamed body fails
     */
    public byte[] bodyBytes() {
        if (state.streamed != null) {
            return streamedBody().clone();
        }
        return Ascii.bytes(state.data, state.base + state.bodyStart, state.bodyEnd - state.bodyStart);
    }

    /**
     * The whole body decoded as UTF-8, whatever its {@code Content-Type} says; malformed sequences
     * become U+FFFD. The rules for a streamed body are those of {@link #body()}.
     *
     * @return the text; empty when there is no body
     * @throws IllegalStateException for a streamed body in an asynchronous handler (use {@link #readBody()})
     * @throws java.io.UncheckedIOException when reading a streamed body fails
     */
    public String bodyText() {
        return new String(state.streamed != null ? streamedBody() : bodyBytes(), StandardCharsets.UTF_8);
    }

    private byte[] streamedBody() {
        if (state.streamedBytes == null) {
            if (!state.mayBlock) {
                throw new IllegalStateException("the body of a request to an asynchronous handler arrives later: "
                        + "use readBody() or bodyPublisher()");
            }
            long limit = state.streamed.collectLimit;
            if (state.streamed.length() > limit) {
                throw state.streamed.tooLargeToCollect();
            }
            try (InputStream in = state.streamed.stream()) {
                byte[] bytes = in.readNBytes((int) Math.min(limit, Integer.MAX_VALUE - 64) + 1);
                if (bytes.length > limit) {
                    throw state.streamed.tooLargeToCollect();
                }
                state.streamedBytes = bytes;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("reading the request body failed", e);
            }
        }
        return state.streamedBytes;
    }

    /**
     * The body as a stream, read as it arrives (blocking handlers): a body of any size passes
     * through in bounded memory. For a buffered body, a stream over it.
     *
     * @return a stream whose {@code read} blocks until bytes arrive and returns -1 at the end
     * @throws IllegalStateException when a streamed body is already being consumed (a streamed body
     *         is taken once, by this or {@link #bodyPublisher()})
     */
    public InputStream bodyStream() {
        if (state.streamed != null) {
            return state.streamed.stream();
        }
        return new java.io.ByteArrayInputStream(bodyBytes());
    }

    /**
     * The body as chunks with demand (asynchronous handlers): delivered on the connection's thread
     * as far as the subscriber has requested; reading pauses meanwhile. A buffered body is one chunk.
     *
     * @return a publisher of the body's bytes; a streamed body accepts one subscriber (a second one
     *         gets {@code onError}), and an empty buffered body completes without {@code onNext}
     */
    public Flow.Publisher<ByteBuffer> bodyPublisher() {
        if (state.streamed != null) {
            return state.streamed.publisher();
        }
        byte[] all = bodyBytes();
        return subscriber -> subscriber.onSubscribe(new Flow.Subscription() {
            private boolean done;

            @Override
            public void request(long n) {
                if (done) {
                    return;
                }
                done = true;
                if (all.length > 0) {
                    subscriber.onNext(ByteBuffer.wrap(all));
                }
                subscriber.onComplete();
            }

            @Override
            public void cancel() {
                done = true;
            }
        });
    }

    /**
     * The body read as JSON into a {@code type} by the router's {@link JsonCodec} (whole-body rules
     * as {@link #bodyBytes()}). A body the codec cannot read is a {@link BodyDecodingException}
     * (400): its default answer names only the type ({@code the body is not a valid Order}), the
     * codec's message stays in its cause, and a mapper for it words the answer.
     *
     * @param <T> the type to read
     * @param type the class the codec reads the body into
     * @return what the codec read; null only if the codec returns null (e.g. for the JSON {@code null})
     * @throws BodyDecodingException (400) when the codec cannot read the body, its exception as the cause
     * @throws IllegalStateException when the router has no codec ({@link Router.Builder#json}), or
     *         for a streamed body in an asynchronous handler
     */
    public <T> T bodyAs(Class<T> type) {
        JsonCodec codec = state.route == null ? null : state.route.json;
        if (codec == null) {
            throw new IllegalStateException("no JSON codec: register one with Router.Builder.json(...)");
        }
        byte[] bytes;
        int offset;
        int length;
        if (state.streamed == null && state.array != null) {
            bytes = state.array;
            offset = state.base + state.bodyStart;
            length = state.bodyEnd - state.bodyStart;
        } else {
            bytes = state.streamed != null ? streamedBody() : bodyBytes();
            offset = 0;
            length = bytes.length;
        }
        try {
            return codec.read(bytes, offset, length, type);
        } catch (Exception e) {
            throw new BodyDecodingException(type, e);
        }
    }

    /**
     * The whole body once it has arrived, without holding a thread (asynchronous handlers).
     *
     * @return a stage that completes with a copy of the body (at most
     *         {@link ServerConfig#maxBodySize()} bytes), or fails if the body does not arrive whole;
     *         already complete for a buffered body
     */
    public CompletionStage<byte[]> readBody() {
        if (state.streamed != null) {
            return state.streamed.readAll();
        }
        return CompletableFuture.completedFuture(bodyBytes());
    }

    private int indexOf(byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (state.data.get(ValueLayout.JAVA_BYTE, state.base + i) == b) {
                return i;
            }
        }
        return to;
    }

    private String ascii(int from, int to) {
        return Ascii.latin1(state.data, state.array, state.base + from, to - from);
    }

    @Override
    public String toString() {
        return state.data == null ? "Request[empty]" : methodName() + " " + target() + " " + version();
    }
}
