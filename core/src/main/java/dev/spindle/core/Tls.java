package dev.spindle.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How a server speaks HTTPS: the {@link SSLContext} its connections' {@link SSLEngine}s come from.
 * Give it to {@link ServerConfig#tls(Tls)}, or set {@code -Dspindle.tls.keystore} (and
 * {@code -Dspindle.tls.password}) for {@link ServerConfig#fromSystemProperties()}. Every Spindle
 * server then speaks TLS on its port through the core's TLS layer; ALPN offers {@code http/1.1}
 * only, and the protocols and cipher suites are the {@code SSLContext}'s defaults.
 *
 * {@snippet :
 * Tls tls = Tls.fromKeyStore(Path.of("server.p12"), "secret".toCharArray());
 * ServerConfig https = ServerConfig.defaults().port(8443).tls(tls);
 * }
 */
public final class Tls {
    /** The one application protocol offered: Spindle speaks HTTP/1.1 only. */
    public static final String ALPN_HTTP_1_1 = "http/1.1";

    private final SSLContext context;

    private Tls(SSLContext context) {
        this.context = context;
    }

    /**
     * TLS with an {@code SSLContext} the application built (its own key managers, trust managers
     * for client certificates, provider).
     *
     * @param context an initialised context
     * @return the TLS settings
     */
    public static Tls of(SSLContext context) {
        return new Tls(Objects.requireNonNull(context, "context"));
    }

    /**
     * TLS with the key and certificate chain in a key store file (PKCS#12 or JKS, recognised by
     * its content), such as one made by {@code keytool -genkeypair}. The key password must be the
     * store password, as {@code keytool} makes it for PKCS#12.
     *
     * @param keyStore the key store file
     * @param password its password
     * @return the TLS settings
     * @throws IllegalArgumentException if the file cannot be read, is not a key store, the password
     *         is wrong or it holds no usable key (the message names the file)
     */
    public static Tls fromKeyStore(Path keyStore, char[] password) {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(password, "password");
        if (!Files.isRegularFile(keyStore)) {
            throw new IllegalArgumentException("no key store file at " + keyStore);
        }
        try {
            KeyStore store = KeyStore.getInstance(keyStore.toFile(), password);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return new Tls(context);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use key store " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /**
     * The context the engines come from (a Netty {@code SslHandler}, say, builds on it too).
     *
     * @return the SSL context
     */
    public SSLContext context() {
        return context;
    }

    /**
     * A server-side engine for one connection, offering {@value #ALPN_HTTP_1_1} through ALPN.
     *
     * @return a new engine in server mode
     */
    public SSLEngine newEngine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters params = engine.getSSLParameters();
        params.setApplicationProtocols(new String[] {ALPN_HTTP_1_1});
        engine.setSSLParameters(params);
        return engine;
    }

    @Override
    public String toString() {
        return "Tls[" + context.getProtocol() + ", " + context.getProvider().getName() + "]";
    }
}
