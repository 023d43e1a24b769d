package io.lmwarden.router.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Lineage keys on hand-made prompt hashes: one hash per message boundary, the last is the whole prompt. */
class ConversationLineagesTest {

    private final ConversationLineages lineages = new ConversationLineages(100);

    @Test
    void aFollowUpContinuesTheConversationWhosePromptItReSends() {
        String a = lineages.keyOf(new long[] {1});
        assertThat(lineages.keyOf(new long[] {1, 2, 3})).isEqualTo(a);
        assertThat(lineages.keyOf(new long[] {1, 2, 3, 4, 5})).isEqualTo(a);
        assertThat(lineages.keyOf(new long[] {9})).as("another start").isNotEqualTo(a);
    }

    @Test
    void conversationsFromOneTemplateAreOneWhileIdenticalAndSeparateOnceTheyDiverge() {
        String first = lineages.keyOf(new long[] {1});
        assertThat(lineages.keyOf(new long[] {1})).as("the same first step again").isEqualTo(first);
        String x = lineages.keyOf(new long[] {1, 2, 3});
        String y = lineages.keyOf(new long[] {1, 2, 4});
        String z = lineages.keyOf(new long[] {1, 7, 8});
        assertThat(x).isEqualTo(first);
        assertThat(y).as("diverged at its second user turn").isNotEqualTo(x);
        assertThat(z).isNotIn(x, y);
        // Each goes on as itself (hashes cover whole prefixes, so different histories never share one).
        assertThat(lineages.keyOf(new long[] {1, 2, 4, 41, 42})).isEqualTo(y);
        assertThat(lineages.keyOf(new long[] {1, 2, 3, 31, 32})).isEqualTo(x);
        assertThat(lineages.keyOf(new long[] {1, 7, 8, 81, 82})).isEqualTo(z);
    }

    @Test
    void forgetsTheLeastRecentlyUsedPromptsBeyondItsBound() {
        ConversationLineages small = new ConversationLineages(2);
        String a = small.keyOf(new long[] {1});
        small.keyOf(new long[] {2});
        small.keyOf(new long[] {3});
        assertThat(small.keyOf(new long[] {1, 5, 6})).as("prompt 1 was forgotten").isNotEqualTo(a);
    }
}
