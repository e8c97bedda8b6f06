package dev.spindle.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What a handler answers: status, headers and one body. {@code Date}, {@code Server},
 * {@code Content-Length} and {@code Connection} are added by the server. The connection reuses
 * one instance per request, so a handler must not keep it after returning.
 */
public final class Response {
    static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    static final String APPLICATION_JSON = "application/json";

    int status = 200;
    String contentType;
    String[] headerNames = new String[4];
    String[] headerValues = new String[4];
    int headerCount;
    byte[] bodyArray;
    int bodyOffset;
    int bodyLength;
    ByteBuffer bodyBuffer;
    String bodyString;

    void reset() {
        status = 200;
        contentType = null;
        if (headerCount > 0) {
            Arrays.fill(headerNames, 0, headerCount, null);
            Arrays.fill(headerValues, 0, headerCount, null);
            headerCount = 0;
        }
        bodyArray = null;
        bodyOffset = 0;
        bodyLength = 0;
        bodyBuffer = null;
        bodyString = null;
    }

    public Response status(int code) {
        if (code < 200 || code > 599) {
            throw new IllegalArgumentException("final status must be 200..599, got " + code);
        }
        status = code;
        return this;
    }

    public int status() {
        return status;
    }

    public Response contentType(String value) {
        checkValue(value);
        contentType = value;
        return this;
    }

    /** Adds a header; framing headers are the server's and are rejected. */
    public Response header(String name, String value) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7F || !Ascii.isTchar((byte) c)) {
                throw new IllegalArgumentException("invalid header name: " + name);
            }
        }
        if (name.equalsIgnoreCase("Content-Length") || name.equalsIgnoreCase("Transfer-Encoding")
                || name.equalsIgnoreCase("Connection")) {
            throw new IllegalArgumentException(name + " is set by the server");
        }
        if (name.equalsIgnoreCase("Content-Type")) {
            return contentType(value);
        }
        checkValue(value);
        if (headerCount == headerNames.length) {
            headerNames = Arrays.copyOf(headerNames, headerCount * 2);
            headerValues = Arrays.copyOf(headerValues, headerCount * 2);
        }
        headerNames[headerCount] = name;
        headerValues[headerCount] = value;
        headerCount++;
        return this;
    }

    private static void checkValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xFF || !Ascii.isFieldValueChar((byte) c)) {
                throw new IllegalArgumentException("invalid character in header value: " + value);
            }
        }
    }

    public Response body(byte[] body) {
        return body(body, 0, body.length);
    }

    /** The array is referenced, not copied, until the response is encoded after the handler returns. */
    public Response body(byte[] body, int offset, int length) {
        clearBody();
        bodyArray = body;
        bodyOffset = offset;
        bodyLength = length;
        return this;
    }

    public Response body(ByteBuffer body) {
        clearBody();
        bodyBuffer = body;
        return this;
    }

    /** A UTF-8 body. */
    public Response body(String body) {
        clearBody();
        bodyString = body;
        return this;
    }

    public Response text(String body) {
        contentType = TEXT_PLAIN;
        return body(body);
    }

    public Response json(String body) {
        contentType = APPLICATION_JSON;
        return body(body);
    }

    private void clearBody() {
        bodyArray = null;
        bodyBuffer = null;
        bodyString = null;
    }

    /** The content type set by the handler, or null. */
    public String contentType() {
        return contentType;
    }

    public int headerCount() {
        return headerCount;
    }

    public String headerName(int i) {
        return headerNames[i];
    }

    public String headerValue(int i) {
        return headerValues[i];
    }

    /** The body as a read-only buffer (no copy of array and buffer bodies), for adapters to other HTTP stacks. */
    public ByteBuffer body() {
        if (bodyString != null) {
            return ByteBuffer.wrap(bodyString.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
        }
        if (bodyArray != null) {
            return ByteBuffer.wrap(bodyArray, bodyOffset, bodyLength).slice().asReadOnlyBuffer();
        }
        if (bodyBuffer != null) {
            return bodyBuffer.asReadOnlyBuffer();
        }
        return ByteBuffer.allocate(0);
    }

    byte[] bodyText() {
        return bodyString == null ? null : bodyString.getBytes(StandardCharsets.UTF_8);
    }
}
