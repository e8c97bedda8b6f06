// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.exchange.Route;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import javax.net.ssl.SSLEngine;

/** The engine's way to what this package keeps package-private; see {@link ApiAccess}. */
final class EngineAccess extends ApiAccess {
    @Override
    public Request request(RequestState state) {
        return new Request(state);
    }

    @Override
    public Response response(ResponseState state) {
        return new Response(state);
    }

    @Override
    public Route route(Router router, RequestState request) {
        return router.route(request);
    }

    @Override
    public void answerFailure(Router router, RequestState request, ResponseState response, Throwable failure) {
        Router.answerFailure(router, request.api, response.api, failure);
    }

    @Override
    public boolean webSockets(Router router) {
        return router != null && router.webSockets;
    }

    @Override
    public ExchangeListener[] listeners(Router router) {
        return router == null ? null : router.listeners;
    }

    @Override
    public ResponseState refusal(Router router, RequestState request, ResponseState response, ResponseState fallback,
            HttpException refusal) {
        if (router == null) {
            Router.fillFailure(null, fallback.api, refusal, false);
            return fallback;
        }
        return router.refusal(request == null ? null : request.api, response.api, fallback.api, refusal).state;
    }

    @Override
    public SSLEngine newEngine(Tls tls) {
        return tls.newEngine();
    }

    @Override
    public RequestBody newBody(long length, Runnable wakeup) {
        return new RequestBody(length, wakeup);
    }

    @Override
    public void collectLimit(RequestBody body, long limit) {
        body.collectLimit = limit;
    }

    @Override
    public boolean demanded(RequestBody body) {
        return body.demanded();
    }

    @Override
    public boolean abandoned(RequestBody body) {
        return body.abandoned();
    }

    @Override
    public long received(RequestBody body) {
        return body.received();
    }

    @Override
    public boolean hasRoom(RequestBody body) {
        return body.hasRoom();
    }

    @Override
    public int offer(RequestBody body, MemorySegment src, byte[] array, long offset, int length) {
        return body.offer(src, array, offset, length);
    }

    @Override
    public void end(RequestBody body) {
        body.end();
    }

    @Override
    public void fail(RequestBody body, IOException cause) {
        body.fail(cause);
    }

    @Override
    public void abandon(RequestBody body) {
        body.abandon();
    }

    @Override
    public HttpException unsupportedEncoding(String accepted) {
        return new Router.UnsupportedEncoding(accepted);
    }

    @Override
    public void decode(RequestBody body, int coding, long limit) {
        body.decode(coding, limit);
    }

    @Override
    public boolean decodingFailed(RequestBody body) {
        return body.decodingFailed();
    }
}
