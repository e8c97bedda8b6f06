// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.client.ClientRequest;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The client's redirects, as {@link ClientConfig#followRedirects(int)} says: which to follow, and the request each asks for. */
final class Redirects {
    private Redirects() {
    }

    /** Follows redirects from {@code answer} to {@code from}, {@code hops} so far, on the thread that completed it. */
    static CompletionStage<ClientResponse> follow(Client client, Client.RequestBuilder from, ClientResponse answer, int hops) {
        Client.RequestBuilder next = hops < client.config().followRedirects() ? next(client, from, answer) : null;
        if (next == null) {
            return CompletableFuture.completedFuture(answer);
        }
        discard(answer);
        next.markSent();
        client.intercept(next);
        return client.send(next.destination(), next.clientRequest()).thenCompose(r -> follow(client, next, r, hops + 1));
    }

    /**
     * The request a redirect asks for (see {@link ClientConfig#followRedirects(int)}), or null when
     * {@code answer} is no redirect to follow: another status, no or a bad {@code Location}, another
     * scheme than http and https, a downgrade from https, or a streamed body it would need again.
     */
    static Client.RequestBuilder next(Client client, Client.RequestBuilder from, ClientResponse answer) {
        int status = answer.status();
        String location = answer.header("Location");
        if ((status != 301 && status != 302 && status != 303 && status != 307 && status != 308) || location == null) {
            return null;
        }
        URI next;
        try {
            next = URI.create(from.address()).resolve(location.trim());
        } catch (IllegalArgumentException e) {
            return null;
        }
        String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
        if (next.getRawAuthority() == null || !(scheme.equals("http") || scheme.equals("https"))
                || (from.destination().secure() && scheme.equals("http"))) {
            return null;
        }
        ClientRequest request = from.clientRequest();
        boolean toGet = status == 303 || ((status == 301 || status == 302) && request.method().equals("POST"));
        if (!toGet && request.hasStreamedBody()) {
            return null;
        }
        String path = next.getRawPath() == null || next.getRawPath().isEmpty() ? "/" : next.getRawPath();
        Client.RequestBuilder b;
        try {
            b = client.request(toGet && !request.method().equals("HEAD") ? "GET" : request.method(),
                    scheme + "://" + next.getRawAuthority() + path + (next.getRawQuery() == null ? "" : "?" + next.getRawQuery()));
        } catch (IllegalArgumentException e) {
            return null;
        }
        boolean sameOrigin = b.destination() == from.destination();
        for (int i = 0; i < request.fieldCount(); i++) {
            String name = request.fieldName(i);
            boolean credential = name.equalsIgnoreCase("Authorization") || name.equalsIgnoreCase("Cookie")
                    || name.equalsIgnoreCase("Proxy-Authorization");
            if (name.equalsIgnoreCase("Host") || (credential && !sameOrigin) || (toGet && name.equalsIgnoreCase("Content-Type"))) {
                continue;
            }
            b.clientRequest().header(name, request.fieldValue(i));
        }
        if (!toGet && request.bufferedBody() != null) {
            b.clientRequest().body(request.bufferedBody());
        }
        if (request.streamsResponse()) {
            b.clientRequest().streamResponse();
        }
        if (request.ownResponseTimeout() != null) {
            b.clientRequest().responseTimeout(request.ownResponseTimeout());
        }
        // the total timeout counts from the first call, over every hop
        b.clientRequest().deadline(request.deadline(), request.totalNanos());
        return b;
    }

    /** A redirect that is followed: a streamed body of it is not read, which ends its connection. */
    static void discard(ClientResponse answer) {
        if (answer.isStreamed()) {
            try {
                answer.bodyStream().close();
            } catch (IOException | IllegalStateException e) {
                // the body goes either way
            }
        }
    }
}
