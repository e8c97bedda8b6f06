package dev.spindle.references.helidon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The file {@code /download} serves: byte {@code i} is {@code i % 251}, written once per process, as Spindle's app does. */
final class DownloadFile {
    static final Path PATH = create();

    private DownloadFile() {
    }

    private static Path create() {
        try {
            Path file = Files.createTempFile("spindle-ref-download-", ".bin");
            file.toFile().deleteOnExit();
            byte[] bytes = new byte[BenchmarkRoutes.DOWNLOAD_BYTES];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i % 251);
            }
            Files.write(file, bytes);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the download file", e);
        }
    }
}
