package io.lmwarden.bench.micro;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProfileSharesTest {

    @Test
    void aLibraryFrameIsChargedToTheRouterCodeThatCalledIt() {
        assertThat(ProfileShares.partOf(List.of("com.fasterxml.jackson.core.json.UTF8StreamJsonParser.nextToken",
                "io.lmwarden.router.session.RequestFactsReader.parse", "io.lmwarden.router.proxy.ProxyHandler.handle")))
                .isEqualTo("body parsing");
        assertThat(ProfileShares.partOf(List.of("java.util.HashMap.get", "io.lmwarden.router.placement.pins.AffinityTable.lookup",
                "io.lmwarden.router.proxy.ProxyExchange.attempt"))).isEqualTo("placement");
        assertThat(ProfileShares.partOf(List.of("java.lang.Long.valueOf", "io.lmwarden.router.session.CanonicalPrompt.shape",
                "io.lmwarden.router.session.RequestFactsReader.read"))).isEqualTo("hashing");
    }

    @Test
    void loggingAndMetricsLibrariesCountAsThemselvesWhereverTheyAreCalledFrom() {
        assertThat(ProfileShares.partOf(List.of("java.util.logging.StreamHandler.publish", "java.util.logging.Logger.info",
                "io.lmwarden.router.stats.RequestLog.ended"))).isEqualTo("logging");
        assertThat(ProfileShares.partOf(List.of("io.micrometer.core.instrument.AbstractTimer.record",
                "io.lmwarden.router.proxy.ProxyExchange.end"))).isEqualTo("metrics+accounting");
    }

    @Test
    void vertxAndNettyFramesWithoutRouterCodeBelowThemAreTheHttpStack() {
        assertThat(ProfileShares.partOf(List.of("sun.nio.ch.SocketDispatcher.write", "io.netty.channel.socket.nio.NioSocketChannel.doWrite",
                "io.vertx.core.net.impl.VertxConnection.write"))).isEqualTo("Vert.x/Netty HTTP");
        // A Vert.x frame nearer the leaf than the router's own: the work is the HTTP stack's, on the router's behalf.
        assertThat(ProfileShares.partOf(List.of("io.vertx.core.http.impl.HttpClientRequestImpl.send",
                "io.lmwarden.router.proxy.ProxyExchange.forward"))).isEqualTo("Vert.x/Netty HTTP");
        assertThat(ProfileShares.partOf(List.of("java.lang.Thread.run"))).isEqualTo("other (JDK)");
    }
}
