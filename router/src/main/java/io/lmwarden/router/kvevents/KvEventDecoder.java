package io.lmwarden.router.kvevents;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Reads vLLM's KV-event payloads ({@code vllm/distributed/kv_events.py}, msgspec msgpack) in both encodings: events as
 * tagged positional arrays ({@code ["BlockStored", hashes, parent, …]}, before vLLM PR #42892) and as maps with a
 * {@code "type"} key (after it, fields by name, in any order); the batch envelope as an array
 * {@code [ts, events, data_parallel_rank]} or as a map. Unknown fields and trailing positions are skipped, so fields
 * vLLM adds later do not break it. Block hashes may be unsigned 64-bit integers (the default) or the digest's bytes,
 * of which the last 8 are taken, as vLLM does when it converts them to integers.
 * <p>
 * It never throws on bad input: every value's format is checked before it is read, and a value of the wrong type is
 * skipped whole, so one bad event costs that event ({@link KvEventBatch#skippedEvents()}) and an unreadable payload
 * gives {@link KvEventBatch#readable()} false. It holds no state, so threads may share one.
 */
public final class KvEventDecoder {

    private static final String BLOCK_STORED = "BlockStored";
    private static final String BLOCK_REMOVED = "BlockRemoved";
    private static final String ALL_BLOCKS_CLEARED = "AllBlocksCleared";

    public KvEventBatch decode(byte[] payload) {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
            return readBatch(in);
        } catch (IOException | RuntimeException e) {
            // msgpack-core signals truncated or invalid input with unchecked MessagePackExceptions.
            return KvEventBatch.unreadable();
        }
    }

    private KvEventBatch readBatch(MessageUnpacker in) throws IOException {
        double ts = 0;
        List<KvEvent> events = null;
        int rank = KvEventBatch.NO_RANK;
        int[] skipped = {0};
        ValueType type = in.getNextFormat().getValueType();
        if (type == ValueType.ARRAY) {
            int n = in.unpackArrayHeader();
            for (int i = 0; i < n; i++) {
                switch (i) {
                    case 0 -> ts = readDouble(in);
                    case 1 -> events = readEvents(in, skipped);
                    case 2 -> rank = readOptionalInt(in, KvEventBatch.NO_RANK);
                    default -> in.skipValue();
                }
            }
        } else if (type == ValueType.MAP) {
            int n = in.unpackMapHeader();
            for (int i = 0; i < n; i++) {
                String key = readKey(in);
                switch (key == null ? "" : key) {
                    case "ts" -> ts = readDouble(in);
                    case "events" -> events = readEvents(in, skipped);
                    case "data_parallel_rank" -> rank = readOptionalInt(in, KvEventBatch.NO_RANK);
                    default -> in.skipValue();
                }
            }
        } else {
            return KvEventBatch.unreadable();
        }
        if (events == null || in.hasNext()) {
            return KvEventBatch.unreadable();
        }
        return new KvEventBatch(true, ts, events, rank, skipped[0]);
    }

    private List<KvEvent> readEvents(MessageUnpacker in, int[] skipped) throws IOException {
        if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
            in.skipValue();
            return null;
        }
        int n = in.unpackArrayHeader();
        List<KvEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            KvEvent e = readEvent(in);
            if (e == null) {
                skipped[0]++;
            } else {
                events.add(e);
            }
        }
        return events;
    }

    private KvEvent readEvent(MessageUnpacker in) throws IOException {
        Fields f = new Fields();
        ValueType type = in.getNextFormat().getValueType();
        if (type == ValueType.ARRAY) {
            int n = in.unpackArrayHeader();
            if (n == 0) {
                return null;
            }
            f.type = readString(in);
            for (int i = 1; i < n; i++) {
                readPositional(in, f, i);
            }
        } else if (type == ValueType.MAP) {
            int n = in.unpackMapHeader();
            for (int i = 0; i < n; i++) {
                String key = readKey(in);
                readNamed(in, f, key == null ? "" : key);
            }
        } else {
            in.skipValue();
            return null;
        }
        return f.toEvent();
    }

    /** Field positions of msgspec's array_like encoding: the tag, then the struct's fields in declaration order. */
    private void readPositional(MessageUnpacker in, Fields f, int position) throws IOException {
        if (BLOCK_STORED.equals(f.type)) {
            switch (position) {
                case 1 -> readNamed(in, f, "block_hashes");
                case 2 -> readNamed(in, f, "parent_block_hash");
                case 3 -> readNamed(in, f, "token_ids");
                case 4 -> readNamed(in, f, "block_size");
                case 6 -> readNamed(in, f, "medium");
                case 7 -> readNamed(in, f, "lora_name");
                case 8 -> readNamed(in, f, "extra_keys");
                case 9 -> readNamed(in, f, "group_idx");
                case 10 -> readNamed(in, f, "kv_cache_spec_kind");
                default -> in.skipValue(); // 5 lora_id (deprecated), 11 sliding window, later additions
            }
        } else if (BLOCK_REMOVED.equals(f.type)) {
            switch (position) {
                case 1 -> readNamed(in, f, "block_hashes");
                case 2 -> readNamed(in, f, "medium");
                case 3 -> readNamed(in, f, "group_idx");
                default -> in.skipValue();
            }
        } else {
            in.skipValue();
        }
    }

    private void readNamed(MessageUnpacker in, Fields f, String name) throws IOException {
        switch (name) {
            case "type" -> f.type = readString(in);
            case "block_hashes" -> f.hashes = readHashes(in, f);
            case "parent_block_hash" -> {
                if (in.getNextFormat() == MessageFormat.NIL) {
                    in.unpackNil();
                } else {
                    long[] one = new long[1];
                    if (readHash(in, one, 0)) {
                        f.hasParent = true;
                        f.parent = one[0];
                    } else {
                        f.bad = true;
                    }
                }
            }
            case "token_ids" -> f.tokens = readInts(in, f);
            case "block_size" -> f.blockSize = readOptionalInt(in, -1);
            case "medium" -> {
                f.mediumPresent = true;
                f.medium = readString(in);
            }
            case "lora_name" -> f.loraName = readString(in);
            case "extra_keys" -> f.firstBlockExtraKeys = readFirstBlockExtraKeys(in);
            case "group_idx" -> f.groupIdx = readOptionalInt(in, KvEvent.NO_GROUP);
            case "kv_cache_spec_kind" -> f.specKind = readString(in);
            default -> in.skipValue();
        }
    }

    private static long[] readHashes(MessageUnpacker in, Fields f) throws IOException {
        if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
            in.skipValue();
            f.bad = true;
            return null;
        }
        int n = in.unpackArrayHeader();
        long[] hashes = new long[n];
        for (int i = 0; i < n; i++) {
            if (!readHash(in, hashes, i)) {
                f.bad = true;
            }
        }
        return hashes;
    }

    /** An unsigned 64-bit integer as its bits, or the last 8 bytes of a digest, big-endian. */
    private static boolean readHash(MessageUnpacker in, long[] into, int at) throws IOException {
        MessageFormat format = in.getNextFormat();
        if (format == MessageFormat.UINT64) {
            into[at] = in.unpackBigInteger().longValue();
            return true;
        }
        if (format.getValueType() == ValueType.INTEGER) {
            into[at] = in.unpackLong();
            return true;
        }
        if (format.getValueType() == ValueType.BINARY) {
            byte[] digest = in.readPayload(in.unpackBinaryHeader());
            long h = 0;
            for (int i = Math.max(0, digest.length - 8); i < digest.length; i++) {
                h = (h << 8) | (digest[i] & 0xff);
            }
            into[at] = h;
            return true;
        }
        in.skipValue();
        return false;
    }

    private static int[] readInts(MessageUnpacker in, Fields f) throws IOException {
        if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
            in.skipValue();
            f.bad = true;
            return null;
        }
        int n = in.unpackArrayHeader();
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            if (in.getNextFormat().getValueType() == ValueType.INTEGER) {
                values[i] = (int) in.unpackLong();
            } else {
                in.skipValue();
                f.bad = true;
            }
        }
        return values;
    }

    /**
     * The first block's extra keys as strings in wire order: plain strings (LoRA name, cache salt, multimodal ids),
     * the string fields of typed keys ({@code {"type":"cache_salt","salt":…}}), tuples flattened. The other blocks'
     * entries matter only for multimodal prompts, which the router does not key.
     */
    private static List<String> readFirstBlockExtraKeys(MessageUnpacker in) throws IOException {
        if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
            in.skipValue();
            return null;
        }
        int n = in.unpackArrayHeader();
        List<String> first = new ArrayList<>(2);
        for (int i = 0; i < n; i++) {
            if (i == 0) {
                flattenScalars(in, first);
            } else {
                in.skipValue();
            }
        }
        return first;
    }

    private static void flattenScalars(MessageUnpacker in, List<String> into) throws IOException {
        MessageFormat format = in.getNextFormat();
        switch (format.getValueType()) {
            case STRING -> into.add(in.unpackString());
            case INTEGER -> into.add(format == MessageFormat.UINT64
                    ? in.unpackBigInteger().toString() : Long.toString(in.unpackLong()));
            case BINARY -> into.add(HexFormat.of().formatHex(in.readPayload(in.unpackBinaryHeader())));
            case ARRAY -> {
                int n = in.unpackArrayHeader();
                for (int i = 0; i < n; i++) {
                    flattenScalars(in, into);
                }
            }
            case MAP -> {
                int n = in.unpackMapHeader();
                for (int i = 0; i < n; i++) {
                    String key = readKey(in);
                    if ("type".equals(key)) {
                        in.skipValue();
                    } else {
                        flattenScalars(in, into);
                    }
                }
            }
            default -> in.skipValue(); // nil (a block without extra keys), booleans, floats
        }
    }

    private static String readKey(MessageUnpacker in) throws IOException {
        return readString(in);
    }

    private static String readString(MessageUnpacker in) throws IOException {
        if (in.getNextFormat().getValueType() == ValueType.STRING) {
            return in.unpackString();
        }
        in.skipValue();
        return null;
    }

    private static double readDouble(MessageUnpacker in) throws IOException {
        ValueType type = in.getNextFormat().getValueType();
        if (type == ValueType.FLOAT) {
            return in.unpackDouble();
        }
        if (type == ValueType.INTEGER) {
            return in.unpackLong();
        }
        in.skipValue();
        return 0;
    }

    private static int readOptionalInt(MessageUnpacker in, int absent) throws IOException {
        if (in.getNextFormat().getValueType() == ValueType.INTEGER) {
            return (int) in.unpackLong();
        }
        in.skipValue();
        return absent;
    }

    /** What one event carried, whichever encoding it came in. */
    private static final class Fields {
        String type;
        long[] hashes;
        boolean hasParent;
        long parent;
        int[] tokens;
        int blockSize = -1;
        boolean mediumPresent;
        String medium;
        String loraName;
        List<String> firstBlockExtraKeys;
        int groupIdx = KvEvent.NO_GROUP;
        String specKind;
        boolean bad;

        KvEvent toEvent() {
            if (type == null || bad) {
                return null;
            }
            Medium m = Medium.parse(medium);
            if (mediumPresent && medium != null && m == null) {
                return null;
            }
            return switch (type) {
                case BLOCK_STORED -> hashes == null || tokens == null || blockSize < 0 ? null
                        : new KvEvent.BlockStored(hashes, hasParent, parent, tokens, blockSize, m, loraName,
                        firstBlockExtraKeys == null ? null : List.copyOf(firstBlockExtraKeys), groupIdx, specKind);
                case BLOCK_REMOVED -> hashes == null ? null : new KvEvent.BlockRemoved(hashes, m, groupIdx);
                case ALL_BLOCKS_CLEARED -> new KvEvent.AllBlocksCleared();
                default -> null;
            };
        }
    }
}
