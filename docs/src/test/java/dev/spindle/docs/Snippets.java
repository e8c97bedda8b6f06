// SPDX-License-Identifier: Apache-2.0
package dev.spindle.docs;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The {@code java} blocks of one Markdown file, compiled as a reader would use them.
 *
 * <p>The convention (docs/README.md states it for writers):
 * <ul>
 *   <li>a {@code java} block is a whole compilation unit: its imports and one public top-level type,
 *       as a reader would save it to a file named after that type;</li>
 *   <li>a block right after the line {@value #STATEMENTS_MARKER} is a fragment: statements, which are
 *       compiled as the body of a method that may throw anything, in a class importing
 *       {@link #FRAGMENT_IMPORTS}.</li>
 * </ul>
 * All the blocks of one file are compiled together (a later block may use an earlier one's class),
 * each file on its own, with {@code -Xlint:all -Werror}.
 */
final class Snippets {
    /** The line that makes the next {@code java} block a fragment of statements. */
    static final String STATEMENTS_MARKER = "<!-- java: statements -->";
    /** What a fragment may use without importing it. */
    static final List<String> FRAGMENT_IMPORTS = List.of("dev.spindle.core.*", "java.io.*", "java.nio.file.*",
            "java.time.*", "java.util.*", "java.util.concurrent.*");
    private static final Pattern PUBLIC_TYPE =
            Pattern.compile("^public\\s+(?:final\\s+|abstract\\s+)*(?:class|record|interface|enum)\\s+(\\w+)", Pattern.MULTILINE);

    /** One {@code java} block: where its first line of code is in the Markdown file, and its text. */
    record Block(Path file, int firstLine, String code, boolean statements) {
    }

    private Snippets() {
    }

    /** The {@code java} blocks of {@code markdown}, in order. */
    static List<Block> blocks(Path markdown) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        List<Block> blocks = new ArrayList<>();
        String previous = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                boolean java = line.strip().equals("```java");
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !lines.get(end).startsWith("```")) {
                    end++;
                }
                if (java) {
                    String code = String.join("\n", lines.subList(start, end)) + "\n";
                    blocks.add(new Block(markdown, start + 1, code, previous.strip().equals(STATEMENTS_MARKER)));
                }
                i = end;
                previous = "";
            } else if (!line.isBlank()) {
                previous = line;
            }
        }
        return blocks;
    }

    /**
     * Compiles every {@code java} block of {@code markdown} into {@code out} against {@code classpath}.
     *
     * @return one line per problem, {@code file:line: message} with the Markdown file's line; empty when all compile
     */
    static List<String> compile(Path markdown, String displayName, Path out, String classpath) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Source> sources = new ArrayList<>();
        for (Block block : blocks(markdown)) {
            if (block.statements()) {
                sources.add(Source.fragment(block));
                continue;
            }
            Matcher type = PUBLIC_TYPE.matcher(block.code());
            if (!type.find()) {
                problems.add(displayName + ":" + block.firstLine() + ": a java block is a whole compilation unit with a "
                        + "public type, or statements marked " + STATEMENTS_MARKER + " on the line before it");
                continue;
            }
            sources.add(new Source(type.group(1), block, block.code(), 0));
        }
        if (sources.isEmpty()) {
            return problems;
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean compiled;
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            Files.createDirectories(out);
            compiled = javac.getTask(null, files, diagnostics,
                    List.of("-d", out.toString(), "-classpath", classpath, "-Xlint:all", "-Werror", "-proc:none"),
                    null, sources).call();
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.NOTE) {
                continue;
            }
            if (d.getSource() instanceof Source source) {
                long line = source.block().firstLine() + d.getLineNumber() - 1 - source.offset();
                problems.add(displayName + ":" + line + ": " + d.getKind().toString().toLowerCase(Locale.ROOT) + ": "
                        + d.getMessage(Locale.ROOT));
            } else {
                problems.add(displayName + ": " + d.getMessage(Locale.ROOT));
            }
        }
        if (!compiled && problems.isEmpty()) {
            problems.add(displayName + ": the compiler failed without a message");
        }
        return problems;
    }

    /** A block as the compiler sees it; {@code offset} is how many lines a fragment's wrapper puts before its code. */
    private static final class Source extends SimpleJavaFileObject {
        private final Block block;
        private final String text;
        private final int offset;

        Source(String typeName, Block block, String text, int offset) {
            super(URI.create("string:///" + typeName + Kind.SOURCE.extension), Kind.SOURCE);
            this.block = block;
            this.text = text;
            this.offset = offset;
        }

        static Source fragment(Block block) {
            String name = "Snippet_line" + block.firstLine();
            StringBuilder wrapped = new StringBuilder();
            for (String imported : FRAGMENT_IMPORTS) {
                wrapped.append("import ").append(imported).append(";\n");
            }
            wrapped.append("public class ").append(name).append(" {\n");
            wrapped.append("    static void snippet() throws Exception {\n");
            int offset = FRAGMENT_IMPORTS.size() + 2;
            wrapped.append(block.code()).append("    }\n}\n");
            return new Source(name, block, wrapped.toString(), offset);
        }

        Block block() {
            return block;
        }

        int offset() {
            return offset;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
