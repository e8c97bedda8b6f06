package dev.spindle.core;

import java.nio.charset.StandardCharsets;

/** Reason phrases and pre-encoded {@code HTTP/1.1 NNN Reason\r\n} status lines. */
final class HttpStatus {
    private static final byte[][] LINES = new byte[600][];

    static {
        for (int code = 100; code < 600; code++) {
            LINES[code] = ("HTTP/1.1 " + code + " " + reason(code) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private HttpStatus() {
    }

    static byte[] statusLine(int code) {
        return LINES[code];
    }

    static String reason(int code) {
        return switch (code) {
            case 100 -> "Continue";
            case 101 -> "Switching Protocols";
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 206 -> "Partial Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 303 -> "See Other";
            case 304 -> "Not Modified";
            case 307 -> "Temporary Redirect";
            case 308 -> "Permanent Redirect";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 415 -> "Unsupported Media Type";
            case 417 -> "Expectation Failed";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            default -> "";
        };
    }
}
