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
}
