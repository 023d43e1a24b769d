package io.lmwarden.common;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void parsesTheFormsOfAllThreeCommandLines() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("15s")).isEqualTo(Duration.ofSeconds(15));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("3m")).isEqualTo(Duration.ofMinutes(3));
        assertThat(Durations.parse("3min")).isEqualTo(Duration.ofMinutes(3));
        assertThat(Durations.parse("2 h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("PT15S")).isEqualTo(Duration.ofSeconds(15));
        assertThat(Durations.parse(" 30 ")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("0.25")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void rejectsAnythingElseSayingWhatWorks() {
        for (String bad : new String[] {"", "fast", "10x", "1h foo", "-5s", "PTxS", "m"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("500ms, 30s");
        }
    }

    @Test
    void formatsBackToTheShortestForm() {
        for (String s : new String[] {"500ms", "30s", "5m", "2h"}) {
            assertThat(Durations.format(Durations.parse(s))).isEqualTo(s);
        }
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
    }
}
