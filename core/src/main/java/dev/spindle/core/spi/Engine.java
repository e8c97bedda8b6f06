package dev.spindle.core.spi;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.concurrent.Executor;

/**
 * What {@link Connection}'s factories call: the core's HTTP engine, which lives package-private in
 * {@code dev.spindle.core} and installs its one instance here when that package loads. Not for
 * applications or strategies: they call {@link Connection#open}.
 */
public abstract class Engine {
    private static volatile Engine installed;

    /**
     * Installs this engine; only the core's own engine can, once.
     *
     * @throws IllegalStateException if an engine is installed already
     */
    protected Engine() {
        synchronized (Engine.class) {
            if (installed != null) {
                throw new IllegalStateException("the core's engine is installed already");
            }
            installed = this;
        }
    }

    static Engine installed() {
        Engine e = installed;
        if (e != null) {
            return e;
        }
        try {
            // its static initialiser installs the engine
            Class.forName("dev.spindle.core.HttpConnection", true, Engine.class.getClassLoader());
        } catch (ClassNotFoundException ex) {
            throw new IllegalStateException("spindle-core's engine is missing from the class path", ex);
        }
        return installed;
    }

    /**
     * A new connection; see {@link Connection#open(Router, ServerConfig, Executor, Runnable, BodyBudget)}.
     *
     * @param router the routes
     * @param config the limits, timeouts and TLS
     * @param blockingExecutor where blocking handlers run, or null to run them inline
     * @param wakeup called from any thread when the connection has work, or null
     * @param budget the server's budget for buffered bodies, or null for none
     * @return the connection
     */
    protected abstract Connection open(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup,
            BodyBudget budget);

    /**
     * A connection that only refuses; see {@link Connection#rejecting}.
     *
     * @param config the limits, timeouts and TLS
     * @param status the status to answer
     * @param message the reason
     * @return the connection
     */
    protected abstract Connection rejecting(ServerConfig config, int status, String message);
}
