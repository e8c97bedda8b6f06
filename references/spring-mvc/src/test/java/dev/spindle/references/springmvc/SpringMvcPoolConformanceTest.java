// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

/**
 * The same suite against {@link SpringMvcServer} on Tomcat's platform-thread pool of 200 (the
 * {@code SpringMvc-pool200} row): the same app and the same Tomcat, so the same deviations.
 */
class SpringMvcPoolConformanceTest extends SpringMvcServerConformanceTest {
    @Override
    protected String[] startArguments() {
        return new String[] {"--server.tomcat.threads.max=200"};
    }

    /**
     * The delayed answers hold no thread (servlet async returns the request thread at once), but
     * each request's dispatch runs on a pool thread, and Tomcat starts another one whenever all are
     * busy: 1,000 requests arriving together grow the pool toward its 200 (idle ones live 60 s).
     */
    @Override
    protected boolean holdsNoThreadWhileWaiting() {
        return false;
    }
}
