package io.lmwarden.sim.kvevents;

import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A decoder of vLLM KV event batches written for the tests from vLLM's msgspec definitions
 * ({@code vllm/distributed/kv_events.py}), not from the simulator's encoder: the batch is {@code [ts, events,
 * data_parallel_rank]}; an event is either a map with a {@code "type"} tag (PR #42892) or a tagged array whose fields
 * follow the struct's declaration order, trailing defaults left out.
 */
final class VllmKvEventDecoder {
    /** BlockStored's fields in declaration order (after the tag, in the array encoding). */
    static final List<String> BLOCK_STORED_FIELDS = List.of("block_hashes", "parent_block_hash", "token_ids", "block_size",
            "lora_id", "medium", "lora_name", "extra_keys", "group_idx", "kv_cache_spec_kind", "kv_cache_spec_sliding_window");
    static final List<String> BLOCK_REMOVED_FIELDS = List.of("block_hashes", "medium", "group_idx");

    /** One decoded event: its type, its fields by name (absent fields missing), and whether it came as a map. */
    record Event(String type, Map<String, Value> fields, boolean map) {
        List<BigInteger> hashes() {
            List<BigInteger> out = new ArrayList<>();
            for (Value v : fields.get("block_hashes").asArrayValue()) {
                out.add(v.asIntegerValue().asBigInteger());
            }
            return out;
        }

        BigInteger parent() {
            Value v = fields.get("parent_block_hash");
            return v == null || v.isNilValue() ? null : v.asIntegerValue().asBigInteger();
        }

        List<Integer> tokens() {
            List<Integer> out = new ArrayList<>();
            for (Value v : fields.get("token_ids").asArrayValue()) {
                out.add(v.asIntegerValue().asInt());
            }
            return out;
        }

        String medium() {
            Value v = fields.get("medium");
            return v == null || v.isNilValue() ? null : v.asStringValue().asString();
        }
    }

    record Batch(double ts, List<Event> events, Integer dataParallelRank) {
    }

    static Batch decode(byte[] payload) {
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
            Value root = u.unpackValue();
            List<Value> batch = root.asArrayValue().list();
            List<Event> events = new ArrayList<>();
            for (Value e : batch.get(1).asArrayValue()) {
                events.add(e.isMapValue() ? fromMap(e) : fromArray(e));
            }
            Value rank = batch.size() > 2 ? batch.get(2) : null;
            return new Batch(batch.get(0).asFloatValue().toDouble(), events,
                    rank == null || rank.isNilValue() ? null : rank.asIntegerValue().asInt());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Event fromMap(Value v) {
        Map<String, Value> fields = new HashMap<>();
        v.asMapValue().map().forEach((k, val) -> fields.put(k.asStringValue().asString(), val));
        return new Event(fields.remove("type").asStringValue().asString(), fields, true);
    }

    private static Event fromArray(Value v) {
        List<Value> items = v.asArrayValue().list();
        String type = items.get(0).asStringValue().asString();
        List<String> names = switch (type) {
            case "BlockStored" -> BLOCK_STORED_FIELDS;
            case "BlockRemoved" -> BLOCK_REMOVED_FIELDS;
            default -> List.of();
        };
        Map<String, Value> fields = new HashMap<>();
        for (int i = 1; i < items.size(); i++) {
            fields.put(names.get(i - 1), items.get(i));
        }
        return new Event(type, fields, false);
    }

    private VllmKvEventDecoder() {
    }
}
