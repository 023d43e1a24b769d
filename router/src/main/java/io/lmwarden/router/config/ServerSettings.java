package io.lmwarden.router.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The router's own HTTP servers: where they listen, what they accept from clients, and how they shut down. */
public record ServerSettings(
        int port,
        String host,
        @Key("bodyLimit") long bodyLimitBytes,
        Duration shutdownGrace,
        Duration shutdownAcceptFor,
        int maxClientConnections,
        Duration bodyTimeout,
        Duration clientIdleTimeout,
        Duration headerTimeout,
        OptionalInt adminPort,
        Optional<String> adminToken,
        String transport) {

    /** {@code native}: epoll on Linux when its library loads, else NIO; {@code nio}: always Java NIO. */
    public static final List<String> TRANSPORTS = List.of("native", "nio");

    public static final Setting<Integer> PORT = Setting.integer("port", 8000, "HTTP port the router listens on").between(0, 65535);
    public static final Setting<String> HOST = Setting.text("host", "0.0.0.0", "address to bind");
    public static final Setting<Long> BODY_LIMIT = Setting.bytes("bodyLimit", "32MiB", "largest request body accepted (413 beyond)");
    public static final Setting<Duration> SHUTDOWN_GRACE = Setting.duration("shutdownGrace", "30s",
            "on shutdown (SIGTERM), open streams and queued requests may finish for this long, counted from the signal");
    public static final Setting<Duration> SHUTDOWN_ACCEPT_FOR = Setting.duration("shutdownAcceptFor", "0s",
            "on SIGTERM, /readyz answers 503 at once but new connections are still served for this long (at most shutdownGrace), "
                    + "so that load balancers stop sending first; 0 when a preStop delay does it, as the operator's pods have");
    public static final Setting<Integer> MAX_CLIENT_CONNECTIONS = Setting.integer("maxClientConnections", 10000,
            "client connections the router keeps open at most; beyond it the longest-idle one is closed, or the new one if none is idle")
            .atLeast(1);
    public static final Setting<Duration> BODY_TIMEOUT = Setting.duration("bodyTimeout", "60s",
            "a request body must arrive whole within this after its headers (408 otherwise)");
    public static final Setting<Duration> CLIENT_IDLE_TIMEOUT = Setting.duration("clientIdleTimeout", "330s",
            "a client connection with no request in progress for this long, or no byte either way for this long, is closed "
                    + "(above streamIdleTimeout, so a quiet stream is ended by the router first)");
    public static final Setting<Duration> HEADER_TIMEOUT = Setting.duration("headerTimeout", "10s",
            "a client connection must deliver a request's whole head (request line and headers) within this from its first byte, "
                    + "or from connecting, else 408 and close (slowloris)").positive();
    public static final Setting<OptionalInt> ADMIN_PORT = Setting.optionalInteger("adminPort",
            "serve the admin API (/api/*) and web UI on this port instead of the inference port (0 = a free port)").between(0, 65535);
    public static final Setting<Optional<String>> ADMIN_TOKEN = Setting.optionalText("adminToken",
            "when set, every /api/* endpoint and raw session keys need 'Authorization: Bearer <token>'");
    public static final Setting<String> TRANSPORT = Setting.choice("transport", "native", TRANSPORTS,
            "sockets through Linux's epoll (native; Java NIO where epoll is not available) or Java NIO (nio); the "
                    + "`router listening` line says which");

    /** Without the {@code adminToken}, which must never reach a log. */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[adminToken " + (adminToken.isPresent() ? "set" : "not set") + ", …]";
    }
}
