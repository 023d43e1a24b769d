package io.lmwarden.bench.workload;

import io.lmwarden.common.api.ApiDialect;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SessionContextTest {

    /** Big steps on a small window: sessions have to compact several times. */
    private static final SessionClass AGENT = WorkloadFile.parse("""
            classes:
              - name: agent
                system: {tokens: 2000}
                firstMessage: {tokens: 3000}
                calls: 40
                stepTokens: {p10: 100, p50: 600, p90: 2500}
                maxTokens: {p50: 200, p90: 800, max: 1500}
                thinkTime: {p50: 10s, p90: 160s}
                compaction: {at: 0.95, summaryTokens: 1000}
            """, "test").classes().get(0);

    @Test
    void everyCallFitsTheWindowBecauseSessionsCompactBeforeTheyReachIt() {
        int window = 16_384;
        int compactions = 0;
        for (int i = 0; i < 40; i++) {
            SessionScript script = new SessionScript(AGENT, i, 1);
            SessionContext context = new SessionContext(script, SharedPrompt.of(AGENT), window);
            for (int step = 1; step <= script.steps(); step++) {
                SessionContext.Call call = context.next(step);
                assertThat(context.promptTokens() + call.maxTokens()).as("session %d step %d", i, step).isLessThanOrEqualTo(window);
                if (call.compaction()) {
                    compactions++;
                    assertThat(call.maxTokens()).isEqualTo(1000);
                }
                context.replied(call, script.historyReply(step, call.maxTokens()));
                if (call.compaction()) {
                    // all that is left: the summary, as the one user turn after the system prompt
                    assertThat(context.conversation().turns()).hasSize(1);
                    assertThat(context.conversation().turns().get(0).text()).hasSize(1000 * WorkloadSpec.CHARS_PER_TOKEN);
                }
            }
        }
        assertThat(compactions).isGreaterThan(40);
    }

    @Test
    void theCallAfterACompactionRestartsFromTheSummaryAndTheNextMessage() {
        SessionScript script = new SessionScript(AGENT, 3, 1);
        SessionContext context = new SessionContext(script, SharedPrompt.of(AGENT), 12_000);
        int step = 1;
        SessionContext.Call call = context.next(step);
        assertThat(call.restart()).isTrue();
        while (!call.compaction()) {
            context.replied(call, script.historyReply(step, call.maxTokens()));
            call = context.next(++step);
            assertThat(call.restart()).isFalse();
        }
        context.replied(call, "summary.");
        SessionContext.Call after = context.next(++step);
        assertThat(after.restart()).isTrue();
        assertThat(context.conversation().turns()).hasSize(1);
        assertThat(context.conversation().turns().get(0).text()).isEqualTo("summary. " + script.userText(step));
    }

    @Test
    void aFirstMessageLargerThanTheWindowIsCutToWhatFits() {
        SessionScript script = new SessionScript(AGENT, 0, 1);
        SessionContext context = new SessionContext(script, SharedPrompt.of(AGENT), 4_096);
        SessionContext.Call call = context.next(1);
        assertThat(context.promptTokens() + call.maxTokens()).isLessThanOrEqualTo(4_096);
        assertThat(script.userText(1)).startsWith(context.conversation().turns().get(0).text().substring(0, 400));
    }

    @Test
    void aSteadyStartCarriesTheHistoryTheLiveSessionWouldHaveBuilt() {
        SessionScript steady = SessionScript.steady(AGENT, 5, 1);
        assertThat(steady.joinStep()).isBetween(1, steady.steps());
        SessionContext joined = new SessionContext(steady, SharedPrompt.of(AGENT), 16_384);
        joined.buildHistory();
        SessionContext live = new SessionContext(steady, SharedPrompt.of(AGENT), 16_384);
        for (int step = 1; step < steady.joinStep(); step++) {
            SessionContext.Call call = live.next(step);
            live.replied(call, steady.historyReply(step, call.maxTokens()));
        }
        assertThat(joined.conversation().turns()).isEqualTo(live.conversation().turns());
        // its first request is one the router has not seen: it restarts
        assertThat(joined.next(steady.joinStep()).restart()).isTrue();
    }

    @Test
    void steadyStartsFavourLongSessionsAndDoNotReuseFreshSessionsIds() {
        double fresh = 0;
        double steady = 0;
        for (int j = 0; j < 400; j++) {
            fresh += new SessionScript(AGENT.withShape(shape(List.of(5, 50))), j, 1).steps();
            steady += SessionScript.steady(AGENT.withShape(shape(List.of(5, 50))), j, 1).steps();
        }
        // calls uniform in 5..50: mean 27.5; drawn in proportion to length: E[n^2]/E[n] = 35
        assertThat(fresh / 400).isBetween(25.0, 30.0);
        assertThat(steady / 400).isBetween(32.5, 37.5);
        assertThat(SessionScript.steady(AGENT, 0, 1).sessionId()).isNotEqualTo(new SessionScript(AGENT, 0, 1).sessionId());
        assertThat(SessionScript.steady(AGENT, 0, 1).index()).isNegative();
    }

    private static SessionShape shape(List<Integer> calls) {
        SessionShape s = AGENT.shape();
        return new SessionShape(s.systemTokens(), s.firstTokens(), new Distribution.IntRange(calls.get(0), calls.get(1)), s.stepTokens(),
                s.maxTokens(), s.pause(), s.compaction(), s.seed());
    }

    @Test
    void withoutCompactionTheConversationGrowsAsTheReferenceWorkloadsDid() {
        SessionClass ref = SessionClass.single(WorkloadSpec.reference(), ApiDialect.ANTHROPIC_MESSAGES);
        SessionScript script = new SessionScript(ref, 1, 1);
        SessionContext context = new SessionContext(script, SharedPrompt.of(ref), 0);
        context.next(1);
        context.replied(new SessionContext.Call(1, 256, false, true), "reply");
        context.next(2);
        assertThat(context.conversation().turns()).extracting(Conversation.Turn::role).containsExactly("user", "assistant", "user");
        assertThat(context.conversation().turns().get(2).text()).isEqualTo(script.userText(2));
    }

    /** WorkloadStats plays sessions on filler text: it must make every call, compaction and prompt size the real texts make. */
    @Test
    void aContextOfSizesOnlyMakesTheSameCallsAsTheRealTexts() {
        int window = 16_384;
        int compactions = 0;
        for (int i = 0; i < 20; i++) {
            SessionScript script = new SessionScript(AGENT, i, 1);
            SessionContext real = new SessionContext(script, SharedPrompt.of(AGENT), window);
            SessionContext sizes = SessionContext.ofSizesOnly(script, SharedPrompt.of(AGENT), window);
            for (int step = 1; step <= script.steps(); step++) {
                SessionContext.Call call = real.next(step);
                assertThat(sizes.next(step)).as("session %d step %d", i, step).isEqualTo(call);
                assertThat(sizes.promptTokens()).as("session %d step %d", i, step).isEqualTo(real.promptTokens());
                compactions += call.compaction() ? 1 : 0;
                real.replied(call, script.historyReply(step, call.maxTokens()));
                sizes.replied(call, SessionContext.filler(call.maxTokens()));
            }
        }
        assertThat(compactions).as("compactions compared").isPositive();
    }
}
