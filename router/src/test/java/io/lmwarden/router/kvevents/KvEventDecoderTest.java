package io.lmwarden.router.kvevents;

import io.lmwarden.router.kvevents.VllmWire.Encoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.lmwarden.router.kvevents.VllmWire.batch;
import static io.lmwarden.router.kvevents.VllmWire.hex;
import static io.lmwarden.router.kvevents.VllmWire.removed;
import static io.lmwarden.router.kvevents.VllmWire.stored;
import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;

class KvEventDecoderTest {

    private final KvEventDecoder decoder = new KvEventDecoder();

    /**
     * A batch as vLLM before PR #42892 sends it, byte by byte from the msgpack spec: {@code KVEventBatch(ts=1.5,
     * events=[BlockStored(block_hashes=[2^64-2], parent_block_hash=None, token_ids=[1,2,3,4], block_size=4,
     * lora_id=None, medium="GPU", lora_name=None)], data_parallel_rank=0)}, every struct array_like.
     */
    @Test
    void readsTheTaggedArrayEncodingByteForByte() {
        byte[] payload = hex("""
                93                            // EventBatch: array of 3
                cb 3ff8000000000000           // ts: float64 1.5
                91                            // events: array of 1
                98                            // BlockStored: tag + 7 fields (the defaults omitted)
                ab 426c6f636b53746f726564     // "BlockStored"
                91 cf fffffffffffffffe        // block_hashes: [uint64 2^64-2]
                c0                            // parent_block_hash: nil
                94 01 02 03 04                // token_ids
                04                            // block_size
                c0                            // lora_id: nil
                a3 475055                     // medium: "GPU"
                c0                            // lora_name: nil
                00                            // data_parallel_rank: 0
                """);
        KvEventBatch batch = decoder.decode(payload);
        assertThat(batch.readable()).isTrue();
        assertThat(batch.timestamp()).isEqualTo(1.5);
        assertThat(batch.dataParallelRank()).isZero();
        assertThat(batch.skippedEvents()).isZero();
        KvEvent.BlockStored s = (KvEvent.BlockStored) batch.events().get(0);
        assertThat(s.blockHashes()).containsExactly(-2L); // 2^64-2 as its 64 bits
        assertThat(s.hasParent()).isFalse();
        assertThat(s.tokenIds()).containsExactly(1, 2, 3, 4);
        assertThat(s.blockSize()).isEqualTo(4);
        assertThat(s.medium()).isEqualTo(Medium.GPU);
        assertThat(s.firstBlockExtraKeys()).isNull();
        assertThat(s.groupIdx()).isEqualTo(KvEvent.NO_GROUP);
    }

    /**
     * The same shape after PR #42892: events are maps with the tag under "type". {@code BlockRemoved(block_hashes=
     * [32-byte sha256 digest], medium="CPU")}, hashes sent as bytes ({@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0}).
     */
    @Test
    void readsTheMapEncodingByteForByteWithADigestHash() {
        byte[] payload = hex("""
                93 cb 3ff8000000000000 91
                83                                    // map of 3
                a4 74797065 ac 426c6f636b52656d6f766564 // "type": "BlockRemoved"
                ac 626c6f636b5f686173686573           // "block_hashes"
                91 c4 20                              // [bin8 of 32 bytes]
                   00112233445566778899aabbccddeeff 0102030405060708 1122334455667788
                a6 6d656469756d a3 435055             // "medium": "CPU"
                07                                    // data_parallel_rank: 7
                """);
        KvEventBatch batch = decoder.decode(payload);
        assertThat(batch.readable()).isTrue();
        assertThat(batch.dataParallelRank()).isEqualTo(7);
        KvEvent.BlockRemoved r = (KvEvent.BlockRemoved) batch.events().get(0);
        // vLLM's int form of a digest is its last 8 bytes, big-endian.
        assertThat(r.blockHashes()).containsExactly(0x1122334455667788L);
        assertThat(r.medium()).isEqualTo(Medium.CPU);
    }

    @ParameterizedTest
    @EnumSource(Encoding.class)
    void readsEveryFieldOfBlockStoredInBothEncodings(Encoding enc) {
        var s = new VllmWire.Stored(List.of(VllmWire.h(11), VllmWire.h(-1L)), VllmWire.h(Long.MIN_VALUE),
                tokens(100, 32), 16, "CPU", "adapter-a",
                List.of(List.of("adapter-a", "tenant-salt"), Arrays.asList((Object) null)), 0, "full_attention");
        KvEventBatch batch = decoder.decode(batch(enc, 2.0, 1, s, new VllmWire.Cleared(), removed("STORAGE", 5)));
        assertThat(batch.readable()).isTrue();
        assertThat(batch.events()).hasSize(3);
        KvEvent.BlockStored e = (KvEvent.BlockStored) batch.events().get(0);
        assertThat(e.blockHashes()).containsExactly(11L, -1L);
        assertThat(e.hasParent()).isTrue();
        assertThat(e.parentBlockHash()).isEqualTo(Long.MIN_VALUE);
        assertThat(e.tokenIds()).isEqualTo(tokens(100, 32));
        assertThat(e.medium()).isEqualTo(Medium.CPU);
        assertThat(e.loraName()).isEqualTo("adapter-a");
        assertThat(e.firstBlockExtraKeys()).containsExactly("adapter-a", "tenant-salt");
        assertThat(e.groupIdx()).isZero();
        assertThat(e.cacheSpecKind()).isEqualTo("full_attention");
        assertThat(batch.events().get(1)).isInstanceOf(KvEvent.AllBlocksCleared.class);
        assertThat(((KvEvent.BlockRemoved) batch.events().get(2)).medium()).isEqualTo(Medium.STORAGE);
    }

    @ParameterizedTest
    @EnumSource(Encoding.class)
    void aMissingMediumIsTheGpuAndAnUnknownOneIsSkipped(Encoding enc) {
        KvEventBatch batch = decoder.decode(batch(enc, 1, null,
                stored(new long[]{1}, null, tokens(0, 4), 4, null),
                removed("TAPE", 1),
                removed("gpu", 1)));
        assertThat(batch.readable()).isTrue();
        assertThat(batch.dataParallelRank()).isEqualTo(KvEventBatch.NO_RANK);
        assertThat(batch.skippedEvents()).isEqualTo(1);
        assertThat(((KvEvent.BlockStored) batch.events().get(0)).medium()).isEqualTo(Medium.GPU);
        assertThat(((KvEvent.BlockRemoved) batch.events().get(1)).medium()).isEqualTo(Medium.GPU);
    }

    @Test
    void readsTheOldestLayoutWithoutMediumAndTrailingFieldsItDoesNotKnow() throws Exception {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(2).packDouble(3).packArrayHeader(2);
            // vLLM's first layout: [tag, hashes, parent, tokens, block_size, lora_id], no medium.
            p.packArrayHeader(6).packString("BlockStored").packArrayHeader(1).packLong(9).packNil();
            p.packArrayHeader(2).packInt(5).packInt(6).packInt(2).packNil();
            // A future layout with two more trailing fields.
            p.packArrayHeader(6).packString("BlockRemoved").packArrayHeader(1).packLong(9).packString("GPU")
                    .packInt(0).packString("LOCAL").packMapHeader(1).packString("x").packInt(1);
            KvEventBatch batch = decoder.decode(p.toByteArray());
            assertThat(batch.readable()).isTrue();
            assertThat(batch.skippedEvents()).isZero();
            assertThat(((KvEvent.BlockStored) batch.events().get(0)).medium()).isEqualTo(Medium.GPU);
            assertThat(((KvEvent.BlockRemoved) batch.events().get(1)).groupIdx()).isZero();
        }
    }

    @Test
    void mapEventsMayCarryUnknownKeysInAnyOrderAndTypedExtraKeys() throws Exception {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packMapHeader(3); // a map envelope, in case a later vLLM drops array_like from EventBatch too
            p.packString("events").packArrayHeader(1);
            p.packMapHeader(9);
            p.packString("session_id").packString("s-1");
            p.packString("token_ids");
            VllmWire.value(p, tokens(0, 2));
            p.packString("extra_keys");
            VllmWire.value(p, List.of(List.of(Map.of("type", "cache_salt", "salt", "s3cret"))));
            p.packString("block_size").packInt(2);
            p.packString("locality").packString("LOCAL");
            p.packString("block_hashes");
            VllmWire.value(p, List.of(VllmWire.h(77)));
            p.packString("type").packString("BlockStored");
            p.packString("parent_block_hash").packNil();
            p.packString("event_version").packInt(1);
            p.packString("ts").packDouble(4.25);
            p.packString("data_parallel_rank").packInt(2);
            KvEventBatch batch = decoder.decode(p.toByteArray());
            assertThat(batch.readable()).isTrue();
            assertThat(batch.timestamp()).isEqualTo(4.25);
            assertThat(batch.dataParallelRank()).isEqualTo(2);
            KvEvent.BlockStored s = (KvEvent.BlockStored) batch.events().get(0);
            assertThat(s.blockHashes()).containsExactly(77L);
            assertThat(s.firstBlockExtraKeys()).containsExactly("s3cret");
            assertThat(s.medium()).isEqualTo(Medium.GPU);
        }
    }

    @Test
    void aBadEventCostsOnlyThatEvent() throws Exception {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3).packDouble(1).packArrayHeader(5);
            p.packMapHeader(2).packString("type").packString("BlockStored") // token_ids missing
                    .packString("block_hashes").packArrayHeader(1).packInt(1);
            p.packArrayHeader(3).packString("BlockRemoved").packString("not a list").packString("GPU");
            p.packArrayHeader(2).packString("SomethingNew").packInt(1);
            p.packInt(42); // not an event at all
            p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(1).packInt(3).packString("GPU");
            p.packInt(0);
            KvEventBatch batch = decoder.decode(p.toByteArray());
            assertThat(batch.readable()).isTrue();
            assertThat(batch.skippedEvents()).isEqualTo(4);
            assertThat(batch.events()).hasSize(1);
            assertThat(((KvEvent.BlockRemoved) batch.events().get(0)).blockHashes()).containsExactly(3L);
        }
    }

    @Test
    void garbageIsUnreadableNeverAnException() {
        byte[] good = batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, 7L, tokens(0, 32), 16, "GPU"));
        assertThat(decoder.decode(new byte[0]).readable()).isFalse();
        assertThat(decoder.decode(hex("c1")).readable()).isFalse(); // a byte msgpack never uses
        assertThat(decoder.decode(hex("a3 616263")).readable()).isFalse(); // a string, not a batch
        assertThat(decoder.decode(hex("92 01 02")).readable()).isFalse(); // events not a list
        assertThat(decoder.decode(Arrays.copyOf(good, good.length - 5)).readable()).isFalse(); // truncated
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThat(decoder.decode(trailing).readable()).isFalse(); // something after the batch
        Random random = new Random(25);
        for (int i = 0; i < 2_000; i++) {
            byte[] noise = new byte[random.nextInt(64)];
            random.nextBytes(noise);
            decoder.decode(noise); // must return, whatever it makes of it
            byte[] flipped = good.clone();
            flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
            decoder.decode(flipped);
        }
        assertThat(decoder.decode(good).events()).hasSize(1);
    }
}
