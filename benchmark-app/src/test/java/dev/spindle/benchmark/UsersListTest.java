// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * {@code /users-list}'s document: pinned by its digest, which the Netty reference's test and
 * scripts/lib/test_bench.py pin too, so the three copies of its recipe stay byte-identical.
 */
class UsersListTest {
    @Test
    void theDocumentIsPinned() throws Exception {
        byte[] doc = BenchmarkApp.usersList();
        assertThat(doc.length).isEqualTo(2230);
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(doc)))
                .isEqualTo("c914468acd53b6a6c09952fe64f52f85c671680b24f9c8fb911098f6f49694ea");
        String text = new String(doc, StandardCharsets.US_ASCII);
        assertThat(text).startsWith("{\"users\":[{\"id\":1,\"name\":\"Grace Dijkstra\"").endsWith("\"score\":40}]}");
        assertThat(text.split("\"id\":", -1)).hasSize(BenchmarkApp.USERS + 1);
    }
}
