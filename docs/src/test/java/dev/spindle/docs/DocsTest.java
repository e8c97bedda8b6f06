// SPDX-License-Identifier: Apache-2.0
package dev.spindle.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * README.md and docs/*.md hold up: every {@code java} block compiles against Spindle as built in
 * this reactor ({@link Snippets} states the convention), and every relative link, anchor included,
 * leads somewhere.
 */
class DocsTest {
    /** The repository's root: surefire runs this module's tests in {@code docs/}. */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    @TempDir
    Path out;

    /** README.md and every Markdown file directly in docs/. */
    static Stream<Path> markdownFiles() throws IOException {
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            return files.stream().map(ROOT::relativize);
        }
    }

    private static String classpath() {
        // surefire may start the test JVM through a manifest-only jar; it names the real path here
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("markdownFiles")
    void everyJavaBlockCompiles(Path file) throws IOException {
        List<String> problems = Snippets.compile(ROOT.resolve(file), file.toString(), out, classpath());
        assertThat(problems).as("compiler messages for the java blocks of " + file).isEmpty();
    }

    @Test
    void theDocsHoldJavaBlocks() throws IOException {
        assertThat(Snippets.blocks(ROOT.resolve("README.md"))).as("README.md's embedding example").isNotEmpty();
        assertThat(Snippets.blocks(ROOT.resolve("docs/embedding.md"))).as("the embedding guide's examples").hasSizeGreaterThan(5);
    }

    /** The check fails, naming the Markdown file's line, for a block that does not compile, whole or fragment. */
    @Test
    void aBrokenBlockIsReportedAtItsLineInTheMarkdownFile() throws IOException {
        Path md = Files.writeString(out.resolve("broken.md"), String.join("\n",
                "# Broken",
                "",
                "```java",
                "public class Fine {",
                "    int answer() { return 42; }",
                "}",
                "```",
                "",
                Snippets.STATEMENTS_MARKER,
                "```java",
                "Router router = Router.builder().build();",
                "int wrong = \"not a number\";",
                "```",
                "",
                "```java",
                "import dev.spindle.core.Router;",
                "",
                "public class Broken {",
                "    Router router = Router.nothingLikeThis();",
                "}",
                "```",
                "",
                "```java",
                "just words",
                "```",
                ""));
        List<String> problems = Snippets.compile(md, "broken.md", out.resolve("classes"), classpath());
        assertThat(problems).hasSize(3);
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("broken.md:12: error: incompatible types"));
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("broken.md:19: error: cannot find symbol"));
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("broken.md:24: a java block is a whole compilation unit"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("markdownFiles")
    void everyRelativeLinkResolves(Path file) throws IOException {
        assertThat(brokenLinks(ROOT.resolve(file))).as("links of " + file + " that lead nowhere").isEmpty();
    }

    /** The link check fails for a missing file and for an anchor no heading makes. */
    @Test
    void aBrokenLinkIsReported() throws IOException {
        Files.writeString(out.resolve("there.md"), "# There\n\n## A `code` heading, with words\n");
        Path md = Files.writeString(out.resolve("links.md"), String.join("\n",
                "[fine](there.md) [anchor](there.md#a-code-heading-with-words) [web](https://example.com/x)",
                "[missing](nowhere.md) [bad anchor](there.md#no-such-heading) [self](#links)",
                "```sh",
                "[not a link](inside-a-code-block.md)",
                "```",
                "# Links",
                ""));
        assertThat(brokenLinks(md)).containsExactly("links.md:2: nowhere.md", "links.md:2: there.md#no-such-heading");
    }

    /** Relative links of {@code markdown} (outside code blocks) whose file, or heading, does not exist. */
    static List<String> brokenLinks(Path markdown) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = Files.readAllLines(markdown);
        boolean code = false;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("```")) {
                code = !code;
                continue;
            }
            if (code) {
                continue;
            }
            Matcher link = LINK.matcher(lines.get(i));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                Path to = path.isEmpty() ? markdown : markdown.getParent().resolve(path).normalize();
                boolean ok = Files.exists(to);
                if (ok && hash >= 0 && to.toString().endsWith(".md")) {
                    ok = anchors(to).contains(target.substring(hash + 1));
                }
                if (!ok) {
                    broken.add(markdown.getFileName() + ":" + (i + 1) + ": " + target);
                }
            }
        }
        return broken;
    }

    /** The anchors GitHub makes of a Markdown file's headings. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code && line.startsWith("#")) {
                String title = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
                anchors.add(title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }
}
