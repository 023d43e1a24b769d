package io.lmwarden.operator.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogLineFormatterTest {

    @Test
    void textIsOneLineEvenWithAnExceptionAndItsCause() {
        LogRecord record = record();
        String line = new LogLineFormatter(false).format(record);
        assertThat(line).endsWith("\n");
        assertThat(line.lines()).hasSize(1);
        assertThat(line).contains("WARNING io.lmwarden.test - reconcile failed for agents/qwen",
                "java.lang.IllegalStateException: workflow", "caused by java.lang.IllegalArgumentException: bad \"spill\"");
    }

    @Test
    void jsonIsOneParsableObjectPerLine() throws Exception {
        String line = new LogLineFormatter(true).format(record());
        assertThat(line.lines()).hasSize(1);
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("WARNING");
        assertThat(json.get("logger").asText()).isEqualTo("io.lmwarden.test");
        assertThat(json.get("message").asText()).isEqualTo("reconcile failed for agents/qwen\nsecond line");
        assertThat(json.get("error").asText()).contains("bad \"spill\"");
        assertThat(json.get("time").asText()).endsWith("Z");
    }

    @Test
    void unknownFormatsAreRejected() {
        assertThatThrownBy(() -> LogLineFormatter.install("xml")).hasMessageContaining("text or json");
    }

    private static LogRecord record() {
        LogRecord record = new LogRecord(Level.WARNING, "reconcile failed for {0}\nsecond line");
        record.setParameters(new Object[] {"agents/qwen"});
        record.setLoggerName("io.lmwarden.test");
        record.setThrown(new IllegalStateException("workflow", new IllegalArgumentException("bad \"spill\"")));
        return record;
    }
}
