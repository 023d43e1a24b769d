package io.lmwarden.common.logging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogOutputTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Logger log = Logger.getLogger("io.lmwarden.test.ReplicaPool");
    private final Handler[] saved = LogManager.getLogManager().getLogger("").getHandlers();

    @AfterEach
    void restoreHandlers() {
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        for (Handler h : saved) {
            root.addHandler(h);
        }
    }

    @Test
    void jsonLinesCarryTheFieldsAsFieldsOfTheObject() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LogOutput.install("json", new PrintStream(out, true, StandardCharsets.UTF_8));
        LogFields.info(log, "replica added", "replica", "sim-0", "url", "http://10.0.0.5:8000", "ready", true, "port", 8000);
        LogFields.log(log, Level.WARNING, "replica check failed", new IllegalStateException("refused\nat once"), "failures", 3);
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(2);
        JsonNode first = JSON.readTree(lines[0]);
        assertThat(first.path("message").asText()).isEqualTo("replica added");
        assertThat(first.path("logger").asText()).isEqualTo("ReplicaPool");
        assertThat(first.path("level").asText()).isEqualTo("INFO");
        assertThat(first.path("replica").asText()).isEqualTo("sim-0");
        assertThat(first.path("ready").isBoolean()).isTrue();
        assertThat(first.path("port").asInt()).isEqualTo(8000);
        JsonNode second = JSON.readTree(lines[1]);
        assertThat(second.path("failures").asInt()).isEqualTo(3);
        assertThat(second.path("error").asText()).isEqualTo("java.lang.IllegalStateException: refused at once");
    }

    @Test
    void textLinesPrintTheFieldsAsKeyValuePairsAfterTheMessage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LogOutput.install("text", new PrintStream(out, true, StandardCharsets.UTF_8));
        LogFields.info(log, "replica added", "replica", "sim-0", "cause", "connection refused");
        assertThat(out.toString(StandardCharsets.UTF_8).strip())
                .matches("\\S+ INFO ReplicaPool replica added replica=sim-0 cause=\"connection refused\"");
    }

    @Test
    void aShutdownLineIsWrittenEvenAfterJavaUtilLoggingWasReset() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LogOutput output = LogOutput.install("json", new PrintStream(out, true, StandardCharsets.UTF_8));
        LogManager.getLogManager().reset(); // what its own shutdown hook does, possibly before ours
        log.info("lost: no handler any more");
        output.shutdownLine("io.lmwarden.router.RouterMain", "shutdown complete", "tookMs", 12);
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("lost").contains("\"message\":\"shutdown complete\",\"tookMs\":12");
        LogManager.getLogManager().readConfiguration(); // back to the JVM's default handlers for other tests
    }

    @Test
    void anUnknownFormatIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> LogOutput.install("yaml")).hasMessageContaining("text or json");
    }
}
