package io.lmwarden.router.kvevents;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BlockKeysTest {

    @Test
    void keysChainOverFullBlocksOnly() {
        int[] prompt = tokens(0, 16 * 3 + 15);
        long[] keys = BlockKeys.chain(BlockKeys.root(), prompt, 16);
        assertThat(keys).hasSize(3);
        // Each key depends on everything before it: the same third block after a different first one differs.
        int[] other = prompt.clone();
        other[0] = 99;
        long[] otherKeys = BlockKeys.chain(BlockKeys.root(), other, 16);
        assertThat(otherKeys[2]).isNotEqualTo(keys[2]);
        assertThat(BlockKeys.chain(BlockKeys.root(), prompt.clone(), 16)).containsExactly(keys);
        assertThat(BlockKeys.next(keys[0], prompt, 16, 16)).isEqualTo(keys[1]);
        assertThatThrownBy(() -> BlockKeys.chain(0, prompt, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rootsFollowTheFirstBlocksExtraKeys() {
        assertThat(BlockKeys.root("lora", "salt")).isEqualTo(BlockKeys.root(List.of("lora", "salt")));
        assertThat(BlockKeys.root(null, "salt")).isEqualTo(BlockKeys.root(List.of("salt")));
        assertThat(BlockKeys.root(null, null)).isEqualTo(BlockKeys.root());
        assertThat(BlockKeys.root("ab", null)).isNotEqualTo(BlockKeys.root(List.of("a", "b")));
        assertThat(BlockKeys.root(null, "salt")).isNotEqualTo(BlockKeys.root());
    }

    @Test
    void noCollisionsAmongAMillionDistinctBlocks() {
        Set<Long> seen = new HashSet<>();
        int[] block = new int[16];
        for (int i = 0; i < 1_000_000; i++) {
            block[i % 16] = i; // neighbouring blocks differ in one token
            assertThat(seen.add(BlockKeys.next(BlockKeys.root(), block, 0, 16))).isTrue();
        }
    }
}
