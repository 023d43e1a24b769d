package io.lmwarden.bench.micro;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;

/**
 * vLLM KV-event payloads for the benchmarks, in the map encoding vLLM sends since PR #42892:
 * {@code [ts, [{"type":"BlockStored", …}], rank]}, hashes as unsigned 64-bit integers.
 */
final class KvEventPayloads {

    static final int BLOCK = 16;

    private KvEventPayloads() {
    }

    /** One BlockStored of {@code blocks} blocks of {@code tokens} from {@code fromBlock}, continuing {@code parent}. */
    static byte[] stored(long[] hashes, int fromBlock, int blocks, long parent, boolean hasParent, int[] tokens) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3).packDouble(1.0).packArrayHeader(1);
            p.packMapHeader(10);
            p.packString("type").packString("BlockStored");
            p.packString("block_hashes").packArrayHeader(blocks);
            for (int b = 0; b < blocks; b++) {
                p.packBigInteger(new BigInteger(Long.toUnsignedString(hashes[fromBlock + b])));
            }
            p.packString("parent_block_hash");
            if (hasParent) {
                p.packBigInteger(new BigInteger(Long.toUnsignedString(parent)));
            } else {
                p.packNil();
            }
            p.packString("token_ids").packArrayHeader(blocks * BLOCK);
            for (int i = fromBlock * BLOCK; i < (fromBlock + blocks) * BLOCK; i++) {
                p.packInt(tokens[i]);
            }
            p.packString("block_size").packInt(BLOCK);
            p.packString("lora_id").packNil();
            p.packString("medium").packString("GPU");
            p.packString("lora_name").packNil();
            p.packString("extra_keys").packArrayHeader(blocks);
            for (int b = 0; b < blocks; b++) {
                p.packNil();
            }
            p.packString("group_idx").packInt(0);
            p.packInt(0);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] removed(long[] hashes, int fromBlock, int blocks) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3).packDouble(1.0).packArrayHeader(1);
            p.packMapHeader(4);
            p.packString("type").packString("BlockRemoved");
            p.packString("block_hashes").packArrayHeader(blocks);
            for (int b = 0; b < blocks; b++) {
                p.packBigInteger(new BigInteger(Long.toUnsignedString(hashes[fromBlock + b])));
            }
            p.packString("medium").packString("GPU");
            p.packString("group_idx").packInt(0);
            p.packInt(0);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A session's prompt: token ids unique to the session, hashes as random as the engine's. */
    static int[] sessionTokens(int session, int length) {
        int[] t = new int[length];
        long x = 0x9E3779B97F4A7C15L * (session + 1);
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            t[i] = (int) ((x >>> 1) % 151_000);
        }
        return t;
    }

    static long[] engineHashes(int session, int blocks) {
        long[] h = new long[blocks];
        long x = 0xD1B54A32D192ED03L * (session + 7);
        for (int i = 0; i < blocks; i++) {
            x += 0x9E3779B97F4A7C15L;
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            h[i] = z ^ (z >>> 31);
        }
        return h;
    }
}
