// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.ClientException.Reason;
import java.io.IOException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;

/**
 * Why a client's TLS failed, as the {@link Reason} its requests fail with: what
 * {@link TlsClientConnection} hands the connection inside it ({@code connectFailed}) in place of a
 * socket's failure. The message is the request's failure detail.
 */
public final class TlsFailure extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Reason reason;

    /**
     * A failure with its reason.
     *
     * @param reason what the requests fail with
     * @param message what happened, for the requests' failures
     * @param cause the engine's exception, or null
     */
    public TlsFailure(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** {@return what the requests fail with} */
    public Reason reason() {
        return reason;
    }

    /**
     * What the engine's exception means for a client: an untrusted chain, a certificate for another
     * host, or any other failure of the handshake. The JDK reports a name mismatch as a
     * {@link CertificateException} whose message starts {@code No subject alternative} or
     * {@code No name matching} (its {@code HostnameChecker}), and an untrusted chain as a
     * certification path that could not be built or validated.
     *
     * @param e what the engine threw
     * @param host the host the address named
     * @return the failure
     */
    static TlsFailure of(SSLException e, String host) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof CertificateException && (message.startsWith("No subject alternative") || message.startsWith("No name matching"))) {
                return new TlsFailure(Reason.HOSTNAME_MISMATCH, "the server's certificate is not for " + host + ": " + message, e);
            }
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException
                    || t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException
                    || t.getClass().getName().equals("sun.security.validator.ValidatorException")) {
                return new TlsFailure(Reason.CERTIFICATE_UNTRUSTED, "the server's certificate is not trusted: " + message, e);
            }
        }
        return new TlsFailure(Reason.TLS_FAILED, "the TLS handshake failed: " + e.getMessage(), e);
    }
}
