// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The header text of {@code multipart/form-data}: the request's boundary parameter (RFC 2046
 * 5.1.1), a part's header section, its {@code Content-Disposition} parameters (RFC 7578 4.2, with
 * {@code filename*} as RFC 8187 defines it) and the file name made safe to use as one.
 */
final class MultipartHeaders {
    /** The longest boundary RFC 2046 allows. */
    static final int MAX_BOUNDARY = 70;

    private MultipartHeaders() {
    }

    /**
     * The boundary of a request's {@code Content-Type}.
     *
     * @throws HttpException 415 when it is not {@code multipart/form-data}, 400 when its boundary
     *         is missing or not one RFC 2046 allows
     */
    static String boundary(String contentType) {
        int semicolon = contentType == null ? -1 : contentType.indexOf(';');
        String essence = contentType == null ? "" : (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        if (!essence.equalsIgnoreCase("multipart/form-data")) {
            throw new HttpException(415, "expected multipart/form-data, got " + (contentType == null ? "no Content-Type" : contentType));
        }
        List<String> params = semicolon < 0 ? List.of() : params(contentType, semicolon, "Content-Type");
        String boundary = param(params, "boundary");
        if (boundary == null) {
            throw new HttpException(400, "multipart/form-data without a boundary parameter");
        }
        if (!validBoundary(boundary)) {
            throw new HttpException(400, "not a valid multipart boundary (1 to 70 of DIGIT ALPHA '()+_,-./:=? and inner spaces)");
        }
        return boundary;
    }

    private static boolean validBoundary(String b) {
        if (b.isEmpty() || b.length() > MAX_BOUNDARY || b.charAt(b.length() - 1) == ' ') {
            return false;
        }
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            boolean ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || "'()+_,-./:=? ".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * A part's header section: {@code head[0, length)}, its lines each ending in CRLF, the last
     * one empty. Lines beginning with a space or tab continue the one before (RFC 5322 folding).
     *
     * @throws HttpException 400 for a malformed line or a missing or wrong {@code Content-Disposition},
     *         413 for more than {@code maxCount} fields
     */
    static Part part(byte[] head, int length, int maxCount) {
        List<String> names = new ArrayList<>(4);
        List<String> values = new ArrayList<>(4);
        int start = 0;
        int end = length - 2;   // the blank line's CRLF
        while (start < end) {
            int eol = lineEnd(head, start, end);
            if (head[start] == ' ' || head[start] == '\t') {
                if (values.isEmpty()) {
                    throw new HttpException(400, "a part's header section begins with a continuation line");
                }
                int last = values.size() - 1;
                values.set(last, (values.get(last) + " " + text(head, start, eol).trim()).trim());
            } else {
                int colon = start;
                while (colon < eol && head[colon] != ':') {
                    if (!tokenChar(head[colon])) {
                        throw new HttpException(400, "a part's header field name is not a token");
                    }
                    colon++;
                }
                if (colon == eol || colon == start) {
                    throw new HttpException(400, "a part's header line has no field name and colon");
                }
                if (names.size() == maxCount) {
                    throw new HttpException(413, "a part has more than " + maxCount + " header fields");
                }
                names.add(text(head, start, colon));
                values.add(text(head, colon + 1, eol).trim());
            }
            start = eol + 2;
        }
        return part(names.toArray(String[]::new), values.toArray(String[]::new));
    }

    /** Where the line at {@code from} ends (its CR); 400 for a bare CR or LF. */
    private static int lineEnd(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
            if (b[i] == '\r' || b[i] == '\n' || b[i] == 0) {
                throw new HttpException(400, "a bare CR, LF or NUL in a part's header section");
            }
        }
        return to;
    }

    private static boolean tokenChar(byte c) {
        return c > 32 && c < 127 && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
    }

    /** Header text: UTF-8 when it is valid UTF-8 (browsers send file names so), else ISO-8859-1. */
    private static String text(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] < 0) {
                try {
                    return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b, from, to - from)).toString();
                } catch (CharacterCodingException e) {
                    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
                }
            }
        }
        return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static Part part(String[] names, String[] values) {
        String disposition = null;
        String contentType = null;
        for (int i = 0; i < names.length; i++) {
            if (disposition == null && names[i].equalsIgnoreCase("content-disposition")) {
                disposition = values[i];
            } else if (contentType == null && names[i].equalsIgnoreCase("content-type")) {
                contentType = values[i];
            }
        }
        if (disposition == null) {
            throw new HttpException(400, "a part without Content-Disposition");
        }
        int semicolon = disposition.indexOf(';');
        String type = (semicolon < 0 ? disposition : disposition.substring(0, semicolon)).trim();
        if (!type.equalsIgnoreCase("form-data")) {
            throw new HttpException(400, "a part's Content-Disposition is not form-data");
        }
        List<String> params = semicolon < 0 ? List.of() : params(disposition, semicolon, "Content-Disposition");
        String name = param(params, "name");
        if (name == null) {
            throw new HttpException(400, "a part's Content-Disposition has no name");
        }
        String filename = param(params, "filename");
        String extended = param(params, "filename*");
        if (extended != null) {
            String decoded = extendedValue(extended);
            if (decoded != null) {
                filename = decoded;
            }
        }
        return new Part(name, filename == null ? null : safeFilename(filename),
                contentType == null || contentType.isEmpty() ? "text/plain" : contentType, names, values);
    }

    /**
     * The parameters after {@code value[from]} (a semicolon), as name, value, name, value...: names
     * lower-cased, values unquoted. A backslash escapes only a quote or a backslash, so a
     * Windows path sent unescaped keeps its separators.
     */
    static List<String> params(String value, int from, String header) {
        List<String> out = new ArrayList<>(4);
        int i = from;
        int n = value.length();
        while (i < n) {
            i = skipSpaces(value, i + 1);   // past the semicolon
            if (i == n) {
                break;
            }
            int eq = i;
            while (eq < n && value.charAt(eq) != '=' && value.charAt(eq) != ';') {
                eq++;
            }
            if (eq == n || value.charAt(eq) != '=') {
                throw new HttpException(400, "a parameter without a value in " + header);
            }
            String name = value.substring(i, eq).trim().toLowerCase(java.util.Locale.ROOT);
            i = skipSpaces(value, eq + 1);
            StringBuilder v = new StringBuilder();
            if (i < n && value.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i == n) {
                        throw new HttpException(400, "an unterminated quoted string in " + header);
                    }
                    char c = value.charAt(i);
                    if (c == '"') {
                        i++;
                        break;
                    }
                    if (c == '\\' && i + 1 < n && (value.charAt(i + 1) == '"' || value.charAt(i + 1) == '\\')) {
                        c = value.charAt(++i);
                    }
                    v.append(c);
                    i++;
                }
                i = skipSpaces(value, i);
                if (i < n && value.charAt(i) != ';') {
                    throw new HttpException(400, "text after a quoted string in " + header);
                }
            } else {
                int end = value.indexOf(';', i);
                end = end < 0 ? n : end;
                v.append(value, i, end);
                i = end;
                while (v.length() > 0 && (v.charAt(v.length() - 1) == ' ' || v.charAt(v.length() - 1) == '\t')) {
                    v.setLength(v.length() - 1);
                }
            }
            out.add(name);
            out.add(v.toString());
        }
        return out;
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** The first value of parameter {@code name} (lower case), or null. */
    static String param(List<String> params, String name) {
        for (int i = 0; i < params.size(); i += 2) {
            if (params.get(i).equals(name)) {
                return params.get(i + 1);
            }
        }
        return null;
    }

    /**
     * An RFC 8187 ext-value ({@code UTF-8'en'%E2%82%AC%20rates.txt}) decoded; null for a charset
     * other than UTF-8 and ISO-8859-1, which the plain {@code filename} then stands for.
     *
     * @throws HttpException 400 when it is malformed
     */
    static String extendedValue(String ext) {
        int first = ext.indexOf('\'');
        int second = first < 0 ? -1 : ext.indexOf('\'', first + 1);
        if (second < 0) {
            throw new HttpException(400, "a malformed filename* (expected charset'language'value)");
        }
        String charsetName = ext.substring(0, first);
        Charset charset;
        if (charsetName.equalsIgnoreCase("UTF-8")) {
            charset = StandardCharsets.UTF_8;
        } else if (charsetName.equalsIgnoreCase("ISO-8859-1")) {
            charset = StandardCharsets.ISO_8859_1;
        } else {
            return null;
        }
        byte[] out = new byte[ext.length() - second - 1];
        int n = 0;
        for (int i = second + 1; i < ext.length(); i++) {
            char c = ext.charAt(i);
            if (c == '%') {
                int hi = i + 2 < ext.length() ? Character.digit(ext.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(ext.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new HttpException(400, "a malformed percent-encoding in filename*");
                }
                out[n++] = (byte) (hi << 4 | lo);
                i += 2;
            } else if (c > 32 && c < 127) {
                out[n++] = (byte) c;
            } else {
                throw new HttpException(400, "a character filename* must percent-encode");
            }
        }
        return new String(out, 0, n, charset);
    }

    /**
     * The last path segment of a file name as sent (browsers send the name alone; old ones and some
     * tools, a whole path with either separator), without control characters; {@code .} and
     * {@code ..} are empty. So {@code directory.resolve(filename)} of a non-empty name stays in
     * {@code directory}.
     */
    static String safeFilename(String sent) {
        int cut = Math.max(sent.lastIndexOf('/'), sent.lastIndexOf('\\'));
        String base = cut < 0 ? sent : sent.substring(cut + 1);
        StringBuilder safe = null;
        for (int i = 0; i < base.length(); i++) {
            char c = base.charAt(i);
            if (c < 32 || c == 127) {
                if (safe == null) {
                    safe = new StringBuilder(base.length()).append(base, 0, i);
                }
            } else if (safe != null) {
                safe.append(c);
            }
        }
        String name = safe == null ? base : safe.toString();
        return name.equals(".") || name.equals("..") ? "" : name;
    }
}
