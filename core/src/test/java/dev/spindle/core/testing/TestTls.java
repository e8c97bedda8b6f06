// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import dev.spindle.core.Tls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed key pair for {@code CN=localhost} (SAN {@code 127.0.0.1} and {@code localhost}),
 * made once per JVM by the JDK's {@code keytool} in a temporary PKCS#12 key store: the server side
 * as {@link Tls}, the client side as an {@link SSLContext} that trusts exactly that certificate.
 */
public final class TestTls {
    /** The key store's password (also the key's, as keytool makes PKCS#12 stores). */
    public static final String PASSWORD = "spindle-test";
    private static final String ALIAS = "spindle";

    private TestTls() {
    }

    /**
     * Another self-signed key pair, made once per JVM and name.
     *
     * @param keyStore its PKCS#12 key store (password {@link #PASSWORD})
     * @param trustStore a PKCS#12 store holding only its certificate, as a client trusts it
     * @param certificate the certificate
     */
    public record KeyPair(Path keyStore, Path trustStore, Certificate certificate) {
        /** {@return TLS settings for a server with this key} */
        public Tls serverTls() {
            return Tls.fromKeyStore(keyStore, PASSWORD.toCharArray());
        }
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, KeyPair> PAIRS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A key pair whose certificate names {@code san} ({@code keytool}'s {@code -ext san=} form, such
     * as {@code dns:elsewhere.test}), made once per JVM.
     *
     * @param san the subject alternative names
     * @return the key pair
     */
    public static KeyPair keyPair(String san) {
        return PAIRS.computeIfAbsent(san, name -> withTrustStore(makeKeyStore("CN=" + name.replaceAll("[^A-Za-z0-9.]", "-"), name)));
    }

    /** {@return the default pair ({@code 127.0.0.1} and {@code localhost}, the key of {@link #serverTls()}) with its trust store} */
    public static KeyPair localhost() {
        return PAIRS.computeIfAbsent("", name -> withTrustStore(Holder.KEY_STORE));
    }

    private static KeyPair withTrustStore(Path store) {
        try {
            Certificate certificate = KeyStore.getInstance(store.toFile(), PASSWORD.toCharArray()).getCertificate(ALIAS);
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry(ALIAS, certificate);
            Path trust = store.resolveSibling("trust.p12");
            try (java.io.OutputStream out = Files.newOutputStream(trust)) {
                trusted.store(out, PASSWORD.toCharArray());
            }
            trust.toFile().deleteOnExit();
            return new KeyPair(store, trust, certificate);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the trust store for " + store + ": " + e, e);
        }
    }

    private static final class Holder {
        static final Path KEY_STORE = makeKeyStore("CN=localhost", "ip:127.0.0.1,dns:localhost");
        static final Tls SERVER = Tls.fromKeyStore(KEY_STORE, PASSWORD.toCharArray());
        static final SSLContext CLIENT = clientContext(KEY_STORE);
    }

    /** The key store file, for {@code -Dspindle.tls.keystore} (its password is {@link #PASSWORD}). */
    public static Path keyStore() {
        return Holder.KEY_STORE;
    }

    /** TLS settings for a test server: the self-signed key. */
    public static Tls serverTls() {
        return Holder.SERVER;
    }

    /** A client context that trusts the test certificate and nothing else. */
    public static SSLContext clientContext() {
        return Holder.CLIENT;
    }

    private static Path makeKeyStore(String dname, String san) {
        try {
            Path dir = Files.createTempDirectory("spindle-tls");
            Path store = dir.resolve("server.p12");
            dir.toFile().deleteOnExit();
            store.toFile().deleteOnExit();
            Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
            List<String> command = List.of(keytool.toString(), "-genkeypair", "-noprompt",
                    "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", dname, "-ext", "san=" + san, "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within 60 s: " + command + "\n" + output);
            }
            if (process.exitValue() != 0 || !Files.isRegularFile(store)) {
                throw new IllegalStateException("keytool failed (exit " + process.exitValue() + "): " + command + "\n" + output);
            }
            return store;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run keytool to make the test key store: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while keytool made the test key store", e);
        }
    }

    private static SSLContext clientContext(Path keyStore) {
        try {
            KeyStore server = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
            Certificate certificate = server.getCertificate(ALIAS);
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry(ALIAS, certificate);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the test client's SSLContext from " + keyStore + ": " + e, e);
        }
    }
}
