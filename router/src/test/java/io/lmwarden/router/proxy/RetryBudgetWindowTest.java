package io.lmwarden.router.proxy;

import io.lmwarden.router.config.UpstreamSettings;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryBudgetWindowTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void attemptsAndTimeBothBoundTheRetries() {
        RetryBudget b = new RetryBudget(3, Duration.ofSeconds(10));
        assertThat(b.allowsAnother(1, 0, SECOND)).isTrue();
        assertThat(b.allowsAnother(2, 0, SECOND)).isTrue();
        assertThat(b.allowsAnother(3, 0, SECOND)).as("three replicas tried").isFalse();
        assertThat(b.allowsAnother(1, 0, 11 * SECOND)).as("ten seconds after the first attempt").isFalse();
        assertThat(new RetryBudget(3, Duration.ZERO).allowsAnother(1, 0, 3600 * SECOND)).as("no time limit").isTrue();
        assertThat(new RetryBudget(1, Duration.ZERO).allowsAnother(1, 0, 0)).as("1 = no retry").isFalse();
        assertThatThrownBy(() -> UpstreamSettings.RETRY_ATTEMPTS.parse("0")).hasMessageContaining("retryAttempts must be >= 1");
        assertThatThrownBy(() -> UpstreamSettings.RETRY_BUDGET.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
    }
}
