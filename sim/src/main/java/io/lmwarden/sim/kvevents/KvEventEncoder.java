package io.lmwarden.sim.kvevents;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.List;

/**
 * msgpack bytes of one {@code KVEventBatch}, as vLLM's {@code msgspec.msgpack.Encoder} writes it (checked against
 * {@code vllm/distributed/kv_events.py} and a capture from vLLM 0.26.0, see sim/README.md). The batch is always the
 * positional array {@code [ts, events, data_parallel_rank]}. Each event is
 * <ul>
 *   <li>{@link KvEventsConfig.Encoding#MAP} (vLLM PR #42892 and later): a map whose first key is {@code "type"}, then
 *       the fields in declaration order; fields that default to None are left out when None ({@code omit_defaults});</li>
 *   <li>{@link KvEventsConfig.Encoding#ARRAY} (before it): {@code ["BlockStored", block_hashes, parent_block_hash,
 *       token_ids, block_size, lora_id, medium, lora_name, extra_keys, group_idx, kv_cache_spec_kind,
 *       kv_cache_spec_sliding_window]}, trailing fields at their None default left out.</li>
 * </ul>
 * Block hashes are unsigned 64-bit integers.
 */
public final class KvEventEncoder {
    private final KvEventsConfig.Encoding encoding;

    public KvEventEncoder(KvEventsConfig.Encoding encoding) {
        this.encoding = encoding;
    }

    public byte[] encode(double ts, List<KvCacheEvent> events, int dataParallelRank) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3);
            p.packDouble(ts);
            p.packArrayHeader(events.size());
            for (KvCacheEvent e : events) {
                if (encoding == KvEventsConfig.Encoding.MAP) {
                    packMap(p, e);
                } else {
                    packArray(p, e);
                }
            }
            p.packInt(dataParallelRank);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void packMap(MessageBufferPacker p, KvCacheEvent event) throws IOException {
        if (event instanceof KvCacheEvent.BlockStored s) {
            int optional = (s.extraKeys() != null ? 1 : 0) + (s.groupIdx() != null ? 1 : 0) + (s.specKind() != null ? 1 : 0);
            p.packMapHeader(8 + optional);
            key(p, "type").packString("BlockStored");
            key(p, "block_hashes");
            hashes(p, s.blockHashes());
            key(p, "parent_block_hash");
            hashOrNil(p, s.parentBlockHash());
            key(p, "token_ids");
            tokens(p, s.tokenIds());
            key(p, "block_size").packInt(s.blockSize());
            key(p, "lora_id");
            intOrNil(p, s.loraId());
            key(p, "medium").packString(s.medium());
            key(p, "lora_name");
            stringOrNil(p, s.loraName());
            if (s.extraKeys() != null) {
                key(p, "extra_keys");
                extraKeys(p, s.extraKeys());
            }
            if (s.groupIdx() != null) {
                key(p, "group_idx").packInt(s.groupIdx());
            }
            if (s.specKind() != null) {
                key(p, "kv_cache_spec_kind").packString(s.specKind());
            }
        } else if (event instanceof KvCacheEvent.BlockRemoved r) {
            p.packMapHeader(3 + (r.groupIdx() != null ? 1 : 0));
            key(p, "type").packString("BlockRemoved");
            key(p, "block_hashes");
            hashes(p, r.blockHashes());
            key(p, "medium").packString(r.medium());
            if (r.groupIdx() != null) {
                key(p, "group_idx").packInt(r.groupIdx());
            }
        } else {
            p.packMapHeader(1);
            key(p, "type").packString("AllBlocksCleared");
        }
    }

    private static void packArray(MessageBufferPacker p, KvCacheEvent event) throws IOException {
        if (event instanceof KvCacheEvent.BlockStored s) {
            // Positions after lora_name are trailing defaults: written up to the last one that is set.
            int length = s.specKind() != null ? 11 : s.groupIdx() != null ? 10 : s.extraKeys() != null ? 9 : 8;
            p.packArrayHeader(length);
            p.packString("BlockStored");
            hashes(p, s.blockHashes());
            hashOrNil(p, s.parentBlockHash());
            tokens(p, s.tokenIds());
            p.packInt(s.blockSize());
            intOrNil(p, s.loraId());
            p.packString(s.medium());
            stringOrNil(p, s.loraName());
            if (length > 8) {
                if (s.extraKeys() != null) {
                    extraKeys(p, s.extraKeys());
                } else {
                    p.packNil();
                }
            }
            if (length > 9) {
                if (s.groupIdx() != null) {
                    p.packInt(s.groupIdx());
                } else {
                    p.packNil();
                }
            }
            if (length > 10) {
                p.packString(s.specKind());
            }
        } else if (event instanceof KvCacheEvent.BlockRemoved r) {
            p.packArrayHeader(r.groupIdx() != null ? 4 : 3);
            p.packString("BlockRemoved");
            hashes(p, r.blockHashes());
            p.packString(r.medium());
            if (r.groupIdx() != null) {
                p.packInt(r.groupIdx());
            }
        } else {
            p.packArrayHeader(1);
            p.packString("AllBlocksCleared");
        }
    }

    private static MessageBufferPacker key(MessageBufferPacker p, String name) throws IOException {
        p.packString(name);
        return p;
    }

    private static void hashes(MessageBufferPacker p, long[] hashes) throws IOException {
        p.packArrayHeader(hashes.length);
        for (long h : hashes) {
            hash(p, h);
        }
    }

    private static void hashOrNil(MessageBufferPacker p, Long h) throws IOException {
        if (h == null) {
            p.packNil();
        } else {
            hash(p, h);
        }
    }

    /** A hash as the unsigned integer Python holds (msgpack uint64 when the top bit is set). */
    private static void hash(MessageBufferPacker p, long h) throws IOException {
        if (h >= 0) {
            p.packLong(h);
        } else {
            p.packBigInteger(new BigInteger(Long.toUnsignedString(h)));
        }
    }

    private static void tokens(MessageBufferPacker p, int[] tokens) throws IOException {
        p.packArrayHeader(tokens.length);
        for (int t : tokens) {
            p.packInt(t);
        }
    }

    /** One entry per block: the tuple of its extra keys ({@code [lora_name, cache_salt]}, either absent) or nil. */
    private static void extraKeys(MessageBufferPacker p, List<List<String>> perBlock) throws IOException {
        p.packArrayHeader(perBlock.size());
        for (List<String> keys : perBlock) {
            if (keys == null) {
                p.packNil();
            } else {
                p.packArrayHeader(keys.size());
                for (String k : keys) {
                    p.packString(k);
                }
            }
        }
    }

    private static void intOrNil(MessageBufferPacker p, Integer v) throws IOException {
        if (v == null) {
            p.packNil();
        } else {
            p.packInt(v);
        }
    }

    private static void stringOrNil(MessageBufferPacker p, String v) throws IOException {
        if (v == null) {
            p.packNil();
        } else {
            p.packString(v);
        }
    }
}
