package io.lmwarden.router.kvevents;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;

class ReplicaBlockIndexTest {

    private static final int B = 16;
    private final ReplicaBlockIndex index = new ReplicaBlockIndex(1_000);

    private static KvEvent.BlockStored stored(long[] hashes, Long parent, int[] tokens, Medium medium) {
        return new KvEvent.BlockStored(hashes, parent != null, parent == null ? 0 : parent, tokens, B, medium, null,
                null, KvEvent.NO_GROUP, null);
    }

    private static KvEvent.BlockRemoved removed(Medium medium, long... hashes) {
        return new KvEvent.BlockRemoved(hashes, medium, KvEvent.NO_GROUP);
    }

    /** A prompt of 4 blocks stored in two events (the second continues from the first's last block). */
    private int[] storeFourBlocks() {
        int[] prompt = tokens(1000, 4 * B + 5);
        index.apply(stored(new long[]{101, 102}, null, java.util.Arrays.copyOfRange(prompt, 0, 2 * B), Medium.GPU), 1);
        index.apply(stored(new long[]{103, 104}, 102L, java.util.Arrays.copyOfRange(prompt, 2 * B, 4 * B),
                Medium.GPU), 2);
        return prompt;
    }

    private long[] keys(int[] prompt) {
        return BlockKeys.chain(BlockKeys.root(), prompt, B);
    }

    @Test
    void aRequestFindsTheBlocksTheEngineAnnouncedByItsOwnTokens() {
        int[] prompt = storeFourBlocks();
        CachedPrefix hit = index.lookup(keys(prompt));
        assertThat(hit.gpuBlocks()).isEqualTo(4);
        assertThat(hit.firstMissingBlock()).isEqualTo(-1);
        assertThat(hit.cachedTokens(prompt.length)).isEqualTo(4 * B);
        // A prompt that is exactly the 4 blocks: vLLM recomputes the last token, so the last block does not count.
        assertThat(hit.gpuCachedTokens(4 * B)).isEqualTo(3 * B);
        // A different third block: only the first two match.
        int[] other = prompt.clone();
        other[2 * B + 3] = 7;
        assertThat(index.lookup(keys(other)).gpuBlocks()).isEqualTo(2);
        assertThat(index.residentBlocks(Medium.GPU)).isEqualTo(4);
        assertThat(index.blockSize()).isEqualTo(B);
    }

    @Test
    void sharedBlocksAreCountedAndUnknownRemovalsIgnored() {
        int[] prompt = storeFourBlocks();
        // The engine announces block 101 again (a second request sharing it), then removes it once.
        index.apply(stored(new long[]{101}, null, java.util.Arrays.copyOfRange(prompt, 0, B), Medium.GPU), 3);
        index.apply(removed(Medium.GPU, 101), 4);
        assertThat(index.lookup(keys(prompt)).gpuBlocks()).isEqualTo(4);
        index.apply(removed(Medium.GPU, 999, 101, 101), 5); // an unknown hash, then one removal too many
        CachedPrefix after = index.lookup(keys(prompt));
        assertThat(after.gpuBlocks()).isZero();
        assertThat(after.firstMissingBlock()).isZero();
        assertThat(after.firstMissEvictedAtMillis()).isEqualTo(5);
        assertThat(index.counters().unknownRemovals()).isEqualTo(2);
        assertThat(index.residentBlocks(Medium.GPU)).isEqualTo(3);
    }

    @Test
    void hostCopiesWithoutTokensAreFoundByHashAndServeAfterTheGpuPrefix() {
        int[] prompt = storeFourBlocks();
        // The offloading connector copies blocks 103 and 104 to host memory (no tokens: not self-describing) ...
        index.apply(new KvEvent.BlockStored(new long[]{103, 104, 555}, false, 0, new int[0], 0, Medium.CPU, null,
                null, KvEvent.NO_GROUP, null), 6);
        // ... and the GPU evicts them.
        index.apply(removed(Medium.GPU, 103, 104), 7);
        CachedPrefix hit = index.lookup(keys(prompt));
        assertThat(hit.gpuBlocks()).isEqualTo(2);
        assertThat(hit.cpuBlocks()).isEqualTo(2);
        assertThat(hit.cachedTokens(prompt.length)).isEqualTo(4 * B);
        assertThat(hit.offloadedCachedTokens(prompt.length)).isEqualTo(2 * B);
        assertThat(index.counters().unresolvedBlocks()).isEqualTo(1); // 555 was never seen with tokens
        assertThat(index.holds(keys(prompt)[2], Medium.CPU)).isTrue();
        assertThat(index.holds(keys(prompt)[2], Medium.GPU)).isFalse();
        assertThat(index.evictedAt(keys(prompt)[3])).isEqualTo(7);
        // A block held only on the host before a GPU hole does not extend the local prefix.
        index.apply(removed(Medium.GPU, 101), 8);
        CachedPrefix hole = index.lookup(keys(prompt));
        assertThat(hole.gpuBlocks()).isZero();
        assertThat(hole.cpuBlocks()).isZero();
        assertThat(hole.firstMissingBlock()).isZero();
    }

    @Test
    void allBlocksClearedMakesTheReplicaColdAtOnce() {
        int[] prompt = storeFourBlocks();
        index.apply(new KvEvent.AllBlocksCleared(), 9);
        assertThat(index.lookup(keys(prompt)).residentBlocks()).isZero();
        assertThat(index.engineEntries()).isZero();
        assertThat(index.clearedAtMillis()).isEqualTo(9);
        assertThat(index.counters().clears()).isEqualTo(1);
        // Stores that continue a block from before the clear cannot be keyed: counted, not guessed.
        index.apply(stored(new long[]{105}, 104L, tokens(5, B), Medium.GPU), 10);
        assertThat(index.counters().orphanStores()).isEqualTo(1);
        assertThat(index.engineEntries()).isZero();
    }

    @Test
    void theSaltAndLoraOfTheFirstBlockSeparateOtherwiseEqualPrompts() {
        int[] prompt = tokens(0, 2 * B);
        index.apply(new KvEvent.BlockStored(new long[]{1, 2}, false, 0, prompt, B, Medium.GPU, "lora-x",
                List.of("lora-x", "tenant-a"), KvEvent.NO_GROUP, null), 1);
        assertThat(index.lookup(BlockKeys.chain(BlockKeys.root("lora-x", "tenant-a"), prompt, B)).gpuBlocks())
                .isEqualTo(2);
        assertThat(index.lookup(BlockKeys.chain(BlockKeys.root("lora-x", "tenant-b"), prompt, B)).gpuBlocks())
                .isZero();
        assertThat(index.lookup(BlockKeys.chain(BlockKeys.root(), prompt, B)).gpuBlocks()).isZero();
    }

    @Test
    void onlyTheFullAttentionGroupIsIndexed() {
        int[] prompt = tokens(0, B);
        index.apply(new KvEvent.BlockStored(new long[]{1}, false, 0, prompt, B, Medium.GPU, null, null, 1,
                "sliding_window"), 1);
        index.apply(new KvEvent.BlockStored(new long[]{2}, false, 0, prompt, B, Medium.GPU, null, null, 0,
                "full_attention"), 1);
        index.apply(new KvEvent.BlockRemoved(new long[]{2}, Medium.GPU, 1), 2);
        assertThat(index.lookup(keys(prompt)).gpuBlocks()).isEqualTo(1);
        assertThat(index.counters().otherGroupEvents()).isEqualTo(2);
    }

    @Test
    void aStoreWhoseTokensDoNotFillItsBlocksIsNotGuessed() {
        index.apply(stored(new long[]{1, 2}, null, tokens(0, B + 3), Medium.GPU), 1);
        assertThat(index.counters().unmappableStores()).isEqualTo(1);
        assertThat(index.engineEntries()).isZero();
    }

    @Test
    void memoryIsGivenBackWhenBlocksLeave() {
        long[] hashes = new long[20_000];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = 1_000_000 + i;
            index.apply(stored(new long[]{hashes[i]}, i == 0 ? null : hashes[i - 1], tokens(i * B, B), Medium.GPU), 1);
        }
        assertThat(index.engineEntries()).isEqualTo(20_000);
        long full = index.bytes();
        index.apply(removed(Medium.GPU, hashes), 2);
        assertThat(index.engineEntries()).isZero();
        assertThat(index.residentBlocks(Medium.GPU)).isZero();
        assertThat(index.bytes()).isLessThan(full);
    }
}
