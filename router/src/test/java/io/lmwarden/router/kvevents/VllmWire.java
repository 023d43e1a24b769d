package io.lmwarden.router.kvevents;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Test fixtures: KV-event payloads encoded field by field as msgspec encodes vLLM's structs
 * ({@code vllm/distributed/kv_events.py}): {@code EventBatch} is {@code array_like} ({@code [ts, events, rank]});
 * events are tagged ({@code tag=True}: the class name), {@code omit_defaults=True}. {@link Encoding#ARRAY} is the
 * encoding before vLLM PR #42892 ({@code array_like=True} on the events too: the tag, then every field in declaration
 * order, trailing fields left out while they hold their default); {@link Encoding#MAP} is after it (a map, the tag
 * under {@code "type"} first, then the fields in declaration order, any field left out while it holds its default).
 * Written from the struct definitions, independently of the simulator's publisher.
 */
final class VllmWire {

    enum Encoding { ARRAY, MAP }

    private VllmWire() {
    }

    /** A hash on the wire: an unsigned 64-bit integer (the default) or a digest's bytes. */
    sealed interface Hash permits IntHash, BytesHash {
    }

    record IntHash(long bits) implements Hash {
    }

    record BytesHash(byte[] digest) implements Hash {
    }

    static Hash h(long bits) {
        return new IntHash(bits);
    }

    /** BlockStored: block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium, lora_name, then defaults. */
    record Stored(List<Hash> hashes, Hash parent, int[] tokens, int blockSize, String medium, String loraName,
                  List<List<Object>> extraKeys, Integer groupIdx, String specKind) {
    }

    record Removed(List<Hash> hashes, String medium, Integer groupIdx) {
    }

    record Cleared() {
    }

    static Stored stored(long[] hashes, Long parent, int[] tokens, int blockSize, String medium) {
        List<Hash> hs = new ArrayList<>();
        for (long x : hashes) {
            hs.add(h(x));
        }
        return new Stored(hs, parent == null ? null : h(parent), tokens, blockSize, medium, null, null, null, null);
    }

    static Removed removed(String medium, long... hashes) {
        List<Hash> hs = new ArrayList<>();
        for (long x : hashes) {
            hs.add(h(x));
        }
        return new Removed(hs, medium, null);
    }

    static byte[] batch(Encoding enc, double ts, Integer rank, Object... events) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(rank == null ? 2 : 3);
            p.packDouble(ts);
            p.packArrayHeader(events.length);
            for (Object e : events) {
                event(p, enc, e);
            }
            if (rank != null) {
                p.packInt(rank);
            }
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void event(MessageBufferPacker p, Encoding enc, Object e) throws IOException {
        if (e instanceof Stored s) {
            // Fields that have no default are always sent; the rest only when set (omit_defaults).
            List<Object[]> fields = new ArrayList<>();
            fields.add(new Object[]{"block_hashes", s.hashes()});
            fields.add(new Object[]{"parent_block_hash", s.parent()});
            fields.add(new Object[]{"token_ids", s.tokens()});
            fields.add(new Object[]{"block_size", s.blockSize()});
            fields.add(new Object[]{"lora_id", null});
            fields.add(new Object[]{"medium", s.medium()});
            fields.add(new Object[]{"lora_name", s.loraName()});
            List<Object[]> defaults = new ArrayList<>();
            defaults.add(new Object[]{"extra_keys", s.extraKeys()});
            defaults.add(new Object[]{"group_idx", s.groupIdx()});
            defaults.add(new Object[]{"kv_cache_spec_kind", s.specKind()});
            defaults.add(new Object[]{"kv_cache_spec_sliding_window", null});
            struct(p, enc, "BlockStored", fields, defaults);
        } else if (e instanceof Removed r) {
            List<Object[]> fields = new ArrayList<>();
            fields.add(new Object[]{"block_hashes", r.hashes()});
            fields.add(new Object[]{"medium", r.medium()});
            List<Object[]> defaults = new ArrayList<>();
            defaults.add(new Object[]{"group_idx", r.groupIdx()});
            struct(p, enc, "BlockRemoved", fields, defaults);
        } else if (e instanceof Cleared) {
            struct(p, enc, "AllBlocksCleared", List.of(), List.of());
        } else {
            throw new IllegalArgumentException(String.valueOf(e));
        }
    }

    private static void struct(MessageBufferPacker p, Encoding enc, String tag, List<Object[]> fields,
                               List<Object[]> defaults) throws IOException {
        if (enc == Encoding.ARRAY) {
            int lastSet = -1; // array_like omits only a trailing run of defaults
            for (int i = 0; i < defaults.size(); i++) {
                if (defaults.get(i)[1] != null) {
                    lastSet = i;
                }
            }
            p.packArrayHeader(1 + fields.size() + lastSet + 1);
            p.packString(tag);
            for (Object[] f : fields) {
                value(p, f[1]);
            }
            for (int i = 0; i <= lastSet; i++) {
                value(p, defaults.get(i)[1]);
            }
        } else {
            List<Object[]> sent = new ArrayList<>(fields);
            for (Object[] d : defaults) {
                if (d[1] != null) {
                    sent.add(d);
                }
            }
            p.packMapHeader(1 + sent.size());
            p.packString("type");
            p.packString(tag);
            for (Object[] f : sent) {
                p.packString((String) f[0]);
                value(p, f[1]);
            }
        }
    }

    @SuppressWarnings("unchecked")
    static void value(MessageBufferPacker p, Object v) throws IOException {
        if (v == null) {
            p.packNil();
        } else if (v instanceof IntHash ih) {
            p.packBigInteger(new BigInteger(Long.toUnsignedString(ih.bits())));
        } else if (v instanceof BytesHash bh) {
            p.packBinaryHeader(bh.digest().length);
            p.writePayload(bh.digest());
        } else if (v instanceof int[] ints) {
            p.packArrayHeader(ints.length);
            for (int i : ints) {
                p.packInt(i);
            }
        } else if (v instanceof Integer i) {
            p.packInt(i);
        } else if (v instanceof String s) {
            p.packString(s);
        } else if (v instanceof List<?> list) {
            p.packArrayHeader(list.size());
            for (Object o : list) {
                value(p, o);
            }
        } else if (v instanceof java.util.Map<?, ?> map) {
            p.packMapHeader(map.size());
            for (var entry : ((java.util.Map<String, Object>) map).entrySet()) {
                p.packString(entry.getKey());
                value(p, entry.getValue());
            }
        } else {
            throw new IllegalArgumentException(v.getClass().getName());
        }
    }

    /** Bytes from hex digits; whitespace and {@code //} comments to the end of a line are ignored. */
    static byte[] hex(String text) {
        String digits = text.replaceAll("//[^\n]*", "").replaceAll("\\s+", "");
        byte[] out = new byte[digits.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static int[] tokens(int from, int count) {
        int[] t = new int[count];
        for (int i = 0; i < count; i++) {
            t[i] = from + i;
        }
        return t;
    }
}
