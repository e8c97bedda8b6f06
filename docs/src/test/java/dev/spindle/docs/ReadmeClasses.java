// SPDX-License-Identifier: Apache-2.0
package dev.spindle.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The public classes of the embedding guide, as written there: every {@code java} block that
 * declares one is taken out of docs/embedding.md and compiled (imports and all) with
 * {@code -Xlint:all -Werror} against the test classpath.
 */
final class ReadmeClasses {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS_NAME = Pattern.compile("^public (?:class|record|interface) (\\w+)", Pattern.MULTILINE);

    private final List<String> names;
    private final URLClassLoader loader;

    private ReadmeClasses(List<String> names, URLClassLoader loader) {
        this.names = names;
        this.loader = loader;
    }

    /** Extracts and compiles the section's classes into {@code dir}; fails the test on any compiler message. */
    static ReadmeClasses compile(Path dir) throws IOException {
        String section = Files.readString(Path.of("..", "docs", "embedding.md"));
        Path src = Files.createDirectories(dir.resolve("src"));
        Path out = Files.createDirectories(dir.resolve("classes"));
        List<String> names = new ArrayList<>();
        List<File> files = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(section);
        while (block.find()) {
            Matcher name = CLASS_NAME.matcher(block.group(1));
            if (name.find()) {
                names.add(name.group(1));
                files.add(Files.writeString(src.resolve(name.group(1) + ".java"), block.group(1)).toFile());
            }
        }

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        // surefire may start the test JVM through a manifest-only jar; it names the real path here
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            boolean ok = javac.getTask(null, fm, diagnostics,
                    List.of("-d", out.toString(), "-classpath", classpath, "-Xlint:all", "-Werror"),
                    null, fm.getJavaFileObjectsFromFiles(files)).call();
            assertThat(diagnostics.getDiagnostics()).as("compiler messages for the README's examples").isEmpty();
            assertThat(ok).isTrue();
        }
        return new ReadmeClasses(List.copyOf(names),
                new URLClassLoader(new URL[] {out.toUri().toURL()}, ReadmeClasses.class.getClassLoader()));
    }

    /** The simple names of the classes found, in README order. */
    List<String> names() {
        return names;
    }

    Class<?> load(String name) throws ClassNotFoundException {
        return loader.loadClass(name);
    }

    /** Calls a public static method of a README class. */
    Object call(String className, String method, Class<?>[] types, Object... args) throws Exception {
        try {
            return load(className).getMethod(method, types).invoke(null, args);
        } catch (InvocationTargetException e) {
            // what the README's code threw, not the reflection wrapper
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
