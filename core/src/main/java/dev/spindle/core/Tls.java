// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How a server speaks HTTPS: the {@link SSLContext} its connections' {@link SSLEngine}s come from.
 * Give it to {@link ServerConfig#tls(Tls)}, or set {@code -Dspindle.tls.keystore} (and
 * {@code -Dspindle.tls.password}) for {@link ServerConfig#fromSystemProperties()}. Every Spindle
 * server then speaks TLS on its port through the core's TLS layer; ALPN offers {@code h2} before
 * {@code http/1.1} (only {@code http/1.1} when {@link ServerConfig#h2(boolean)} is off). The protocols and cipher suites are the {@code SSLContext}'s defaults unless
 * {@link #parameters(Consumer)} changes them (or asks for client certificates).
 *
 * {@snippet :
 * Tls tls = Tls.fromKeyStore(Path.of("server.p12"), "secret".toCharArray());
 * ServerConfig https = ServerConfig.defaults().port(8443).tls(tls);
 * }
 */
public final class Tls {
    /** The ALPN protocol id of HTTP/1.1 (RFC 7301 6). */
    public static final String ALPN_HTTP_1_1 = "http/1.1";

    private static final Consumer<SSLParameters> DEFAULTS = p -> { };

    private final SSLContext context;
    private final Consumer<SSLParameters> parameters;

    private Tls(SSLContext context, Consumer<SSLParameters> parameters) {
        this.context = context;
        this.parameters = parameters;
    }

    /**
     * TLS with an {@code SSLContext} the application built (its own key managers, trust managers
     * for client certificates, provider).
     *
     * @param context an initialised context
     * @return the TLS settings
     */
    public static Tls of(SSLContext context) {
        return new Tls(Objects.requireNonNull(context, "context"), DEFAULTS);
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
            return new Tls(context, DEFAULTS);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use key store " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /**
     * These settings with {@code change} applied to every connection's {@link SSLParameters}: the
     * protocols, the cipher suites, client certificates ({@code setNeedClientAuth(true)}), SNI
     * matchers. ALPN is the server's choice whatever it sets (see {@link ServerConfig#h2(boolean)}).
     *
     * {@snippet :
     * Tls strict = Tls.fromKeyStore(store, password).parameters(p -> p.setProtocols(new String[] {"TLSv1.3"}));
     * }
     *
     * @param change applied to each engine's parameters, after the ones set before it
     * @return a copy with the change
     */
    public Tls parameters(Consumer<SSLParameters> change) {
        Objects.requireNonNull(change, "change");
        return new Tls(context, parameters.andThen(change));
    }

    /**
     * A server-side engine for one connection; the TLS layer chooses its ALPN protocol. Throws
     * {@link IllegalArgumentException} if the {@link #parameters} set what the engine does not support.
     */
    SSLEngine newEngine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters params = engine.getSSLParameters();
        parameters.accept(params);
        engine.setSSLParameters(params);
        return engine;
    }

    @Override
    public String toString() {
        return "Tls[" + context.getProtocol() + ", " + context.getProvider().getName() + "]";
    }
}
