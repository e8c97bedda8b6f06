// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the benchmark app's routes need and no framework has: the download file, the user list and
 * JSON string quoting.
 */
public final class Fixtures {
    /** The user list's names and roles; Spindle's app and scripts/lib/bench.py build the same bytes. */
    private static final String[] FIRST = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus"};
    private static final String[] LAST = {"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth"};
    private static final String[] ROLES = {"admin", "editor", "viewer", "owner"};
    /** How many records {@link #usersList()} holds. */
    public static final int USERS = 20;

    private Fixtures() {
    }

    /**
     * The JSON document {@code /users-list} answers, as Spindle's app builds it: {@value #USERS}
     * small user records, about 2 KB of ASCII (the body of the json-gzip scenario).
     *
     * @return a new array of the document's bytes
     */
    public static byte[] usersList() {
        StringBuilder json = new StringBuilder("{\"users\":[");
        for (int i = 1; i <= USERS; i++) {
            String first = FIRST[i % FIRST.length];
            String last = LAST[i * 3 % LAST.length];
            json.append(i == 1 ? "" : ",")
                    .append("{\"id\":").append(i)
                    .append(",\"name\":\"").append(first).append(' ').append(last)
                    .append("\",\"email\":\"").append(first.toLowerCase(Locale.ROOT)).append('.')
                    .append(last.toLowerCase(Locale.ROOT)).append(i).append("@example.com")
                    .append("\",\"role\":\"").append(ROLES[i % ROLES.length])
                    .append("\",\"active\":").append(i % 4 != 0)
                    .append(",\"score\":").append(i * 37 % 100).append('}');
        }
        return json.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Writes the file {@code /download} serves, as Spindle's app does: byte {@code i} is
     * {@code i % 251}, in a temporary file deleted when the JVM exits.
     *
     * @param bytes its length
     * @return the file
     * @throws UncheckedIOException if it cannot be written
     */
    public static Path downloadFile(int bytes) {
        try {
            Path file = Files.createTempFile("spindle-ref-download-", ".bin");
            file.toFile().deleteOnExit();
            byte[] content = new byte[bytes];
            for (int i = 0; i < content.length; i++) {
                content[i] = (byte) (i % 251);
            }
            Files.write(file, content);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the download file", e);
        }
    }

    /**
     * A JSON string literal for {@code value}, with the escapes JSON requires (as Spindle's {@code Json.quote}).
     *
     * @param value the text
     * @return it quoted and escaped
     */
    public static String quote(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append("\\u");
                        for (int shift = 12; shift >= 0; shift -= 4) {
                            sb.append(Character.forDigit(c >> shift & 0xF, 16));
                        }
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
