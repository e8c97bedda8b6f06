// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The JDK's {@link HttpClient} over HTTP/2 at more concurrency than one connection carries. The JDK
 * client opens one HTTP/2 connection per destination and fails a request beyond the server's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS} ("too many concurrent streams", JDK-8225647) instead of
 * waiting or opening another connection; so the requests go over several clients (lanes, a
 * connection each), each carrying at most {@code streamsPerLane} at once, and wait, without a
 * thread, for a stream when every lane's are taken.
 */
final class JdkHttp2Lanes implements AutoCloseable {
    private final List<HttpClient> lanes;
    private final Semaphore[] permits;
    /** Sends waiting for a stream, each given the lane whose permit it now holds. */
    private final Queue<IntConsumer> waiting = new ConcurrentLinkedQueue<>();

    /**
     * @param count how many clients (connections)
     * @param streamsPerLane the streams each may carry at once (at most the server's limit)
     * @param client makes each client (HTTP/2)
     */
    JdkHttp2Lanes(int count, int streamsPerLane, Supplier<HttpClient> client) {
        HttpClient[] made = new HttpClient[count];
        permits = new Semaphore[count];
        for (int i = 0; i < count; i++) {
            made[i] = client.get();
            permits[i] = new Semaphore(streamsPerLane);
        }
        lanes = List.of(made);
    }

    /**
     * {@link HttpClient#sendAsync} on a lane with a stream free, now or once one is.
     *
     * @param request the request
     * @param handler its body handler
     * @param <T> the body's type
     * @return the response, as sendAsync's
     */
    <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
        IntConsumer send = lane -> {
            CompletableFuture<HttpResponse<T>> sent;
            try {
                sent = lanes.get(lane).sendAsync(request, handler);
            } catch (RuntimeException e) {
                release(lane);
                result.completeExceptionally(e);
                return;
            }
            sent.whenComplete((answer, failure) -> {
                release(lane);
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(answer);
                }
            });
        };
        int lane = tryAcquire();
        if (lane >= 0) {
            send.accept(lane);
            return result;
        }
        waiting.add(send);
        // a stream freed between the try and the queueing would be missed: try once more for whoever waits
        lane = tryAcquire();
        if (lane >= 0) {
            handOver(lane);
        }
        return result;
    }

    private int tryAcquire() {
        for (int i = 0; i < permits.length; i++) {
            if (permits[i].tryAcquire()) {
                return i;
            }
        }
        return -1;
    }

    /** A stream of {@code lane} is free: the first waiting send takes it, else it goes back. */
    private void release(int lane) {
        handOver(lane);
    }

    private void handOver(int lane) {
        IntConsumer next = waiting.poll();
        if (next != null) {
            next.accept(lane);
        } else {
            permits[lane].release();
            // a send queued meanwhile may have found no permit: give it this one
            if (!waiting.isEmpty() && permits[lane].tryAcquire()) {
                handOver(lane);
            }
        }
    }

    @Override
    public void close() {
        for (HttpClient c : lanes) {
            c.close();
        }
    }
}
