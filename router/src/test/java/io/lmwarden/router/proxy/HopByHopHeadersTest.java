package io.lmwarden.router.proxy;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HopByHopHeadersTest {

    @Test
    void connectionHeadersAndThoseItNamesStayBehindInAnyCaseTheRestIsCopiedAsWritten() {
        MultiMap from = MultiMap.caseInsensitiveMultiMap()
                .add("Connection", "keep-alive, X-Hop-Secret")
                .add("Keep-Alive", "timeout=5")
                .add("TRANSFER-ENCODING", "chunked")
                .add("x-hop-secret", "only for the next hop")
                .add("Host", "router:8000")
                .add("Content-Length", "12")
                .add("X-Session-Id", "s-1")
                .add("Authorization", "Bearer k")
                .add("accept", "text/event-stream")
                .add("accept", "application/json");
        MultiMap to = MultiMap.caseInsensitiveMultiMap();
        HopByHopHeaders.copy(from, to, HopByHopHeaders.names("host", "content-length"));
        assertThat(to.names()).containsExactlyInAnyOrder("X-Session-Id", "Authorization", "accept");
        assertThat(to.getAll("accept")).containsExactly("text/event-stream", "application/json");
        assertThat(to.get("x-session-id")).isEqualTo("s-1");
    }
}
