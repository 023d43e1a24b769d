package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.stats.RouterMetrics;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** Which status each failure gets, per API, and which may go to another replica: the table the exchange follows. */
class FailureKindTest {

    @Test
    void statusesPerApi() {
        ApiDialect openai = ApiDialect.OPENAI_CHAT;
        ApiDialect anthropic = ApiDialect.ANTHROPIC_MESSAGES;
        // Saturated, not broken: OpenAI's rate limit, Anthropic's overloaded.
        assertThat(FailureKind.QUEUE_FULL.status(openai)).isEqualTo(429);
        assertThat(FailureKind.QUEUE_FULL.status(anthropic)).isEqualTo(529);
        assertThat(FailureKind.QUEUE_TIMEOUT.status(anthropic)).isEqualTo(529);
        assertThat(FailureKind.UPSTREAM_503.status(anthropic)).isEqualTo(503);
        assertThat(FailureKind.UPSTREAM_504.status(openai)).isEqualTo(504);
        assertThat(FailureKind.IDLE_TIMEOUT.status(openai)).isEqualTo(504);
        assertThat(FailureKind.CONNECTION_CAP.status(openai)).isEqualTo(503);
        assertThat(FailureKind.ROUTER_SOCKETS.status(openai)).isEqualTo(503);
        assertThat(FailureKind.CONNECT.status(anthropic)).isEqualTo(502);
        assertThat(FailureKind.MIDSTREAM_DROP.status(openai)).isEqualTo(502);
        assertThat(FailureKind.UPSTREAM_ERROR_IN_STREAM.status(openai)).isEqualTo(502);
        assertThat(FailureKind.BAD_PIN.status(null)).as("no API shape: the router's own endpoints").isEqualTo(400);
    }

    @Test
    void onlyTheReplicasFaultsGoElsewhere() {
        assertThat(Arrays.stream(FailureKind.values()).filter(FailureKind::retryElsewhere)).containsExactlyInAnyOrder(
                FailureKind.CONNECTION_CAP, FailureKind.CONNECT, FailureKind.SEND, FailureKind.UPSTREAM_502, FailureKind.UPSTREAM_503,
                FailureKind.UPSTREAM_504, FailureKind.DROP_BEFORE_FIRST_BYTE, FailureKind.IDLE_TIMEOUT);
        assertThat(FailureKind.ofUpstreamStatus(503)).isEqualTo(FailureKind.UPSTREAM_503);
        assertThat(FailureKind.ofUpstreamStatus(500)).as("a 500 is the engine's answer, relayed").isNull();
        assertThat(FailureKind.of(new NoReplicaAvailableException(400, "x"))).isEqualTo(FailureKind.BAD_PIN);
        assertThat(FailureKind.of(new NoReplicaAvailableException(503, "x"))).isEqualTo(FailureKind.NO_REPLICA);
        assertThat(FailureKind.of(new AdmissionController.Rejection(AdmissionController.Rejection.Reason.QUEUE_TIMEOUT, "m", 3)))
                .isEqualTo(FailureKind.QUEUE_TIMEOUT);
    }

    @Test
    void labelsAreTheMetricsKinds() {
        assertThat(FailureKind.UPSTREAM_ERROR_IN_STREAM.label(400)).isEqualTo("upstream_400");
        assertThat(FailureKind.IDLE_TIMEOUT.label(400)).isEqualTo("idle_timeout");
        // The kinds born at 0 in lmw_request_errors_total are kinds of failure.
        assertThat(Arrays.stream(FailureKind.values()).map(FailureKind::label)).containsAll(RouterMetrics.ERROR_KINDS);
    }
}
