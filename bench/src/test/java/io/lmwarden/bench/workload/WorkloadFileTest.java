package io.lmwarden.bench.workload;

import io.lmwarden.bench.client.AgentApis;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.common.api.ApiDialect;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkloadFileTest {

    @Test
    void theExampleWithEveryFeatureParses() {
        Workload w = WorkloadFile.read(Path.of("workloads/everything.yaml"));
        assertThat(w.classes()).extracting(SessionClass::name).containsExactly("claude-code", "codex", "script");
        SessionClass cc = w.classes().get(0);
        assertThat(cc.share()).isEqualTo(2);
        assertThat(cc.shape().calls()).isEqualTo(new Distribution.IntRange(4, 9));
        assertThat(cc.keying()).isEqualTo(SessionKeying.METADATA_USER_ID);
        SessionClass codex = w.classes().get(1);
        assertThat(codex.api()).isEqualTo(ApiDialect.OPENAI_RESPONSES);
        assertThat(codex.sharedFirstMessage()).isTrue();
        assertThat(codex.systemScope()).isEqualTo(SessionClass.SystemScope.CLASS);
        assertThat(w.classes().get(2).keying()).isEqualTo(SessionKeying.NONE);
        assertThat(w.replicaOverrides()).containsEntry(3, "prefillMsPerToken=0.6,stepBaseMs=30");
        assertThat(w.faults()).hasSize(2);
        assertThat(w.faults().get(1).kind()).isEqualTo(ScheduledFault.Kind.KILL);
        assertThat(w.faults().get(1).at()).isEqualTo(Duration.ofMinutes(2));
        for (String example : List.of("slow-replica", "keyless", "shared-first-message", "short-long-mix", "kill-replica")) {
            assertThat(WorkloadFile.read(Path.of("workloads/" + example + ".yaml")).classes()).isNotEmpty();
        }
    }

    @Test
    void typosAndBadValuesAreErrorsThatSayWhere() {
        assertThatThrownBy(() -> WorkloadFile.parse("classes:\n  - name: a\n    stepTokenz: 3\n", "w.yaml"))
                .hasMessageContaining("w.yaml: classes[0]: unknown key 'stepTokenz'");
        assertThatThrownBy(() -> WorkloadFile.parse("classes: []\n", "w.yaml")).hasMessageContaining("at least one session class");
        assertThatThrownBy(() -> WorkloadFile.parse("classes:\n  - name: a\n    key: robot\n", "w.yaml"))
                .hasMessageContaining("session key must be");
        assertThatThrownBy(() -> WorkloadFile.parse("classes:\n  - name: a\n    api: openai\n    key: metadata\n", "w.yaml"))
                .hasMessageContaining("needs api anthropic");
        assertThatThrownBy(() -> WorkloadFile.parse("classes:\n  - name: a\n  - name: a\n", "w.yaml")).hasMessageContaining("distinct");
        assertThatThrownBy(() -> WorkloadFile.parse("faults: [kill replica one at 5m]\nclasses:\n  - name: a\n", "w.yaml"))
                .hasMessageContaining("kill replica one at 5m");
    }

    @Test
    void faultsParseAsWritten() {
        ScheduledFault kill = ScheduledFault.parse("kill replica 1 at 5m");
        assertThat(kill.kind()).isEqualTo(ScheduledFault.Kind.KILL);
        assertThat(kill.replica()).isEqualTo(1);
        assertThat(kill.at()).isEqualTo(Duration.ofMinutes(5));
        ScheduledFault fail = ScheduledFault.parse("503 × 20 replica 2 at 30s");
        assertThat(fail.simFaultsBody()).isEqualTo("{\"failNext\":20,\"status\":503}");
        ScheduledFault stall = ScheduledFault.parse("stall 2s x20 replica 0 at 1m");
        assertThat(stall.simFaultsBody()).isEqualTo("{\"stallNext\":20,\"stallMs\":2000}");
        assertThat(ScheduledFault.parse("unhealthy replica 3 at 2m").simFaultsBody()).isEqualTo("{\"unhealthy\":true}");
        ScheduledFault drain = ScheduledFault.parse("drain replica 1 at 90s");
        assertThat(drain.kind()).isEqualTo(ScheduledFault.Kind.DRAIN);
        assertThat(drain.replica()).isEqualTo(1);
        assertThat(drain.describe()).isEqualTo("drain replica 1 at 90.0s");
        assertThatThrownBy(() -> ScheduledFault.parse("200 replica 0 at 1s")).hasMessageContaining("not an error status");
        assertThatThrownBy(() -> ScheduledFault.parse("kill replica 1")).hasMessageContaining("write e.g.");
    }

    @Test
    void equalSharesAlternateAndUnequalOnesKeepTheirRatio() {
        SessionClass a = SessionClass.single(WorkloadSpec.reference(), ApiDialect.ANTHROPIC_MESSAGES);
        SessionClass b = new SessionClass("b", 1, SessionShape.of(WorkloadSpec.reference()), SessionClass.SystemScope.SHARED, false,
                ApiDialect.ANTHROPIC_MESSAGES, SessionKeying.NONE);
        ClassSchedule half = new ClassSchedule(List.of(a, b));
        List<Integer> seq = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            seq.add(half.next());
        }
        assertThat(seq).containsExactly(0, 1, 0, 1, 0, 1);
        SessionClass c = new SessionClass("c", 3, SessionShape.of(WorkloadSpec.reference()), SessionClass.SystemScope.SHARED, false,
                ApiDialect.ANTHROPIC_MESSAGES, SessionKeying.NONE);
        ClassSchedule third = new ClassSchedule(List.of(a, c));
        int ones = 0;
        for (int i = 0; i < 40; i++) {
            ones += third.next();
        }
        assertThat(ones).isEqualTo(30);
    }

    @Test
    void templatedClassesShareTheirFirstMessageAndStepsVaryWithinTheRange() {
        Workload w = WorkloadFile.parse("classes:\n  - name: t\n    firstMessage: {tokens: 50, shared: true}\n"
                + "    steps: {min: 2, max: 6}\n  - name: u\n    firstMessage: {tokens: 50}\n", "w");
        SessionClass t = w.classes().get(0);
        SessionClass u = w.classes().get(1);
        assertThat(new SessionScript(t, 0, 1).userText(1)).isEqualTo(new SessionScript(t, 5, 1).userText(1));
        assertThat(new SessionScript(u, 0, 1).userText(1)).isNotEqualTo(new SessionScript(u, 1, 1).userText(1));
        assertThat(new SessionScript(t, 0, 1).userText(2)).isNotEqualTo(new SessionScript(t, 5, 1).userText(2));
        Set<Integer> steps = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            steps.add(new SessionScript(t, i, 1).steps());
        }
        assertThat(steps).containsExactlyInAnyOrder(3, 4, 5, 6, 7);
        // the shorthand keeps the reference workload's prompts
        assertThat(new SessionScript(WorkloadSpec.reference(), 3, 1).userText(1))
                .isEqualTo(PseudoText.of(42, "first-3", WorkloadSpec.reference().firstTokens()));
    }

    @Test
    void metadataKeyingGoesIntoTheBodyAndResponsesBodiesLookLikeCodexs() throws Exception {
        Conversation c = new Conversation("sys");
        c.addUser("hello");
        ObjectMapper m = new ObjectMapper();
        JsonNode anthropic = m.readTree(AgentApis.requestBody(ApiDialect.ANTHROPIC_MESSAGES, "m", 16, c, "sess-1"));
        assertThat(m.readTree(anthropic.path("metadata").path("user_id").asText()).path("session_id").asText()).isEqualTo("sess-1");
        JsonNode responses = m.readTree(AgentApis.requestBody(ApiDialect.OPENAI_RESPONSES, "m", 16, c));
        assertThat(responses.path("instructions").asText()).isEqualTo("sys");
        assertThat(responses.path("input").get(0).path("role").asText()).isEqualTo("user");
        assertThat(responses.path("max_output_tokens").asInt()).isEqualTo(16);
        assertThat(responses.path("store").asBoolean(true)).isFalse();
    }
}
