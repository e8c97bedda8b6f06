// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Prometheus text exposition (format 0.0.4), parsed: one {@link Sample} per line
 * {@code name{label="value",...} value [timestamp]}, comments and blank lines skipped, label
 * values unescaped ({@code \\}, {@code \"}, {@code \n}). Malformed lines fail the parse.
 */
record Scrape(List<Sample> samples) {
    /** One line: the metric name, its labels in order, its value. */
    record Sample(String name, Map<String, String> labels, double value) {
        /** Whether this sample has every label of {@code wanted} with the same value (others may be present too). */
        boolean has(Map<String, String> wanted) {
            return wanted.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
        }
    }

    static Scrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        int number = 0;
        for (String line : text.split("\n", -1)) {
            number++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                samples.add(sample(line));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("line " + number + " is not a sample: " + line, e);
            }
        }
        return new Scrape(List.copyOf(samples));
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("bad metric name '" + name + "'");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq);
                if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*") || line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("bad label at " + i);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (char c; (c = line.charAt(j)) != '"'; j++) {
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(c);
                    }
                }
                if (labels.put(label, value.toString()) != null) {
                    throw new IllegalArgumentException("label " + label + " twice");
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        String[] rest = line.substring(i).strip().split(" ");
        if (rest.length < 1 || rest.length > 2 || rest[0].isEmpty()) {
            throw new IllegalArgumentException("no value, or more than a value and a timestamp");
        }
        double value = switch (rest[0]) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(rest[0]);
        };
        return new Sample(name, Map.copyOf(labels), value);
    }

    /** The samples named {@code name} that have every label of {@code labels}. */
    List<Sample> find(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.has(labels)).toList();
    }

    /** The sum of the values of {@link #find}; 0 when there is none. */
    double sum(String name, Map<String, String> labels) {
        return find(name, labels).stream().mapToDouble(Sample::value).sum();
    }

    /** Every value label {@code label} takes on the samples named {@code name}. */
    List<String> values(String name, String label) {
        return samples.stream().filter(s -> s.name().equals(name)).map(s -> s.labels().get(label)).distinct().toList();
    }
}
