package io.lmwarden.sim.kvevents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.SimReplica;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator's KV cache events through real JeroMQ sockets on loopback: a SUB socket on the PUB endpoint, a DEALER
 * on the replay ROUTER, decoded with {@link VllmKvEventDecoder} (written from vLLM's definitions).
 */
class KvEventsStreamTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static final String TOPIC = "kv-events";
    /** 40 GPU blocks: a 608-token prompt (38 blocks) and its reply fill them; two more such prompts evict it. */
    private static final SimProfile PROFILE = SimProfile.named("tiny").withKvBlocks(40);
    private static final int PROMPT_TOKENS = 608;
    /** A hang guard, not a speed bound: what the test awaits arrives in well under a second on an idle machine. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private final HttpClient http = HttpClient.newHttpClient();
    private final ZContext zmq = new ZContext(1);
    private SimCluster cluster;
    /** Every message received so far: seq → payload, in arrival order. */
    private final Map<Long, byte[]> received = new LinkedHashMap<>();

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        zmq.close();
    }

    /**
     * {@code replicas} replicas of {@code engines} engines publishing on {@code endpoint} and replaying on
     * {@code replayEndpoint}; tcp port 0 lets every engine bind a port nothing else can hold, read back from the replica.
     */
    private String start(KvEventsConfig.Encoding encoding, boolean selfDescribing, int replicas, int engines, String endpoint,
                         String replayEndpoint) {
        KvEventsConfig config = KvEventsConfig.parse("{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":"
                + "\"" + endpoint + "\",\"replay_endpoint\":\"" + replayEndpoint + "\",\"topic\":\"" + TOPIC + "\"}")
                .withEncoding(encoding).withSelfDescribingHostEvents(selfDescribing);
        SimProfile profile = PROFILE.withKvOffloadGib(400 * PROFILE.kvBytesPerBlock() / (1024.0 * 1024 * 1024));
        cluster = SimCluster.start(SimOptions.defaults().withProfile(profile).withTimeScale(20).withReplicas(replicas)
                .withEngines(engines).withKvEvents(config));
        return cluster.urls().get(0);
    }

    @Test
    void aRequestsBlocksArriveAsAChainWithTheTokenIdsOfTokenizeThenTheirHostCopiesAndEvictions() {
        ZMQ.Socket sub = streaming(KvEventsConfig.Encoding.MAP);
        String url = cluster.urls().get(0);
        String prompt = exactPrompt(7);
        List<Integer> tokenized = new ArrayList<>();
        post(url, "/tokenize", "{\"prompt\":" + JSON.valueToTree(prompt) + "}").get("tokens").forEach(t -> tokenized.add(t.asInt()));
        assertThat(tokenized).hasSize(PROMPT_TOKENS);

        completion(url, prompt, null);
        // A 608-token prompt is prefilled in two chunks (512 tokens a step): expect its stores in pieces.
        Set<BigInteger> gpuStored = new HashSet<>();
        Set<BigInteger> cpuStored = new HashSet<>();
        List<VllmKvEventDecoder.Event> events = collect(sub, "the prompt's GPU stores and their host copies", e -> {
            if (e.type().equals("BlockStored") && "GPU".equals(e.medium()) && containsRun(tokenized, e.tokens())) {
                gpuStored.addAll(e.hashes());
            } else if (e.type().equals("BlockStored") && "CPU".equals(e.medium())) {
                cpuStored.addAll(e.hashes());
            }
            return gpuStored.size() >= PROMPT_TOKENS / 16 && cpuStored.containsAll(gpuStored);
        });

        // GPU stores of this prompt: a chain from the first block, token ids as /tokenize gives them.
        List<VllmKvEventDecoder.Event> gpu = events.stream().filter(e -> e.type().equals("BlockStored") && "GPU".equals(e.medium()))
                .filter(e -> containsRun(tokenized, e.tokens())).toList();
        assertThat(gpu).isNotEmpty();
        assertThat(gpu.get(0).parent()).as("the first block has no parent").isNull();
        List<BigInteger> chain = new ArrayList<>();
        List<Integer> tokens = new ArrayList<>();
        for (VllmKvEventDecoder.Event e : gpu) {
            if (!chain.isEmpty()) {
                assertThat(e.parent()).as("each event continues the chain").isEqualTo(chain.get(chain.size() - 1));
            }
            chain.addAll(e.hashes());
            tokens.addAll(e.tokens());
            assertThat(e.map()).isTrue();
            assertThat(e.fields().get("block_size").asIntegerValue().asInt()).isEqualTo(16);
            assertThat(e.fields().get("group_idx").asIntegerValue().asInt()).isZero();
            assertThat(e.fields().get("kv_cache_spec_kind").asStringValue().asString()).isEqualTo("full_attention");
            assertThat(e.fields()).containsKeys("lora_id", "lora_name", "extra_keys").doesNotContainKey("kv_cache_spec_sliding_window");
        }
        assertThat(tokens).isEqualTo(tokenized);
        assertThat(chain).hasSize(PROMPT_TOKENS / 16).doesNotHaveDuplicates();
        assertThat(chain).as("hashes are unsigned 64-bit").allMatch(h -> h.signum() >= 0 && h.bitLength() <= 64)
                .anyMatch(h -> h.bitLength() == 64);

        // The host tier's copies: the same hashes, medium CPU, each after the GPU store of its block (vLLM's placeholder
        // payload: no token ids, no parent). Copies of the probe requests' blocks may come first: not this prompt's.
        for (VllmKvEventDecoder.Event cpu : events.stream().filter(e -> "CPU".equals(e.medium()))
                .filter(e -> e.hashes().stream().anyMatch(chain::contains)).toList()) {
            assertThat(cpu.tokens()).isEmpty();
            assertThat(cpu.parent()).isNull();
            for (BigInteger h : cpu.hashes()) {
                VllmKvEventDecoder.Event storedOnGpu = gpu.stream().filter(g -> g.hashes().contains(h)).findFirst().orElseThrow();
                assertThat(events.indexOf(storedOnGpu)).isLessThan(events.indexOf(cpu));
            }
        }
        assertThat(cpuStored).containsAll(chain);

        // Two other prompts take every GPU block: this prompt's GPU blocks are removed, its host copies are not.
        completion(url, exactPrompt(8), null);
        completion(url, exactPrompt(9), null);
        Set<BigInteger> removedGpu = new HashSet<>();
        Set<BigInteger> promptBlocks = new HashSet<>(chain.subList(0, PROMPT_TOKENS / 16));
        collect(sub, "the prompt's GPU blocks removed", e -> {
            if (e.type().equals("BlockRemoved")) {
                assertThat(e.medium()).isEqualTo("GPU");
                removedGpu.addAll(e.hashes());
            }
            return removedGpu.containsAll(promptBlocks);
        });

        // The same prompt again comes back from the host tier: its blocks are stored on the GPU again.
        completion(url, prompt, null);
        collect(sub, "the prompt's first block stored on the GPU again",
                e -> e.type().equals("BlockStored") && "GPU".equals(e.medium()) && e.hashes().contains(chain.get(0)));
    }

    @Test
    void theCacheSaltIsTheFirstBlocksExtraKeyAndAResetAnnouncesAllBlocksCleared() {
        ZMQ.Socket sub = streaming(KvEventsConfig.Encoding.MAP);
        String url = cluster.urls().get(0);
        completion(url, exactPrompt(11), "tenant-a");
        VllmKvEventDecoder.Event first = awaitEvent(sub, "a salted first block stored on the GPU", e -> e.type().equals("BlockStored")
                && e.parent() == null && "GPU".equals(e.medium()) && !e.fields().get("extra_keys").asArrayValue().get(0).isNilValue());
        List<org.msgpack.value.Value> extra = first.fields().get("extra_keys").asArrayValue().list();
        assertThat(extra).hasSize(first.hashes().size());
        assertThat(extra.get(0).asArrayValue().get(0).asStringValue().asString()).isEqualTo("tenant-a");
        assertThat(extra.subList(1, extra.size())).allMatch(org.msgpack.value.Value::isNilValue);

        // Idle now: vLLM's /reset_prefix_cache drops everything and says so.
        awaitIdle();
        post(url, "/reset_prefix_cache", "");
        collect(sub, "AllBlocksCleared after the reset", e -> e.type().equals("AllBlocksCleared"));
    }

    @Test
    void replayReturnsTheRequestedRangeThenTheEndMarker() {
        ZMQ.Socket sub = streaming(KvEventsConfig.Encoding.MAP);
        String url = cluster.urls().get(0);
        completion(url, exactPrompt(21), null);
        completion(url, exactPrompt(22), null);
        collect(sub, "an eviction", e -> e.type().equals("BlockRemoved"));
        long last = received.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(last).isGreaterThan(3);

        ZMQ.Socket dealer = replayClient();
        Map<Long, byte[]> all = replay(dealer, 0);
        assertThat(all.keySet()).as("from the first batch on, without gaps").startsWith(0L, 1L, 2L);
        VllmKvEventDecoder.Batch zero = VllmKvEventDecoder.decode(all.get(0L));
        assertThat(zero.events()).extracting(VllmKvEventDecoder.Event::type).containsExactly("AllBlocksCleared");
        assertThat(zero.dataParallelRank()).isZero();
        received.forEach((seq, payload) -> assertThat(all.get(seq)).as("replayed batch " + seq).isEqualTo(payload));

        long from = last - 2;
        Map<Long, byte[]> tail = replay(dealer, from);
        assertThat(tail.keySet()).first().isEqualTo(from);
        assertThat(tail.keySet()).contains(last).allMatch(seq -> seq >= from);
    }

    @Test
    void theOldTaggedArrayEncodingCarriesTheSameFieldsByPosition() {
        ZMQ.Socket sub = streaming(KvEventsConfig.Encoding.ARRAY);
        String url = cluster.urls().get(0);
        completion(url, exactPrompt(31), null);
        List<VllmKvEventDecoder.Event> events = collect(sub, "a host copy", e -> "CPU".equals(e.medium()));
        VllmKvEventDecoder.Event gpu = events.stream().filter(e -> "GPU".equals(e.medium()) && e.type().equals("BlockStored"))
                .findFirst().orElseThrow();
        assertThat(gpu.map()).isFalse();
        // Up to kv_cache_spec_kind; the sliding window, None, is a trailing default and left out.
        assertThat(gpu.fields()).hasSize(10);
        assertThat(gpu.fields().get("block_size").asIntegerValue().asInt()).isEqualTo(16);
        assertThat(gpu.fields().get("lora_id").isNilValue()).isTrue();
        assertThat(gpu.fields().get("kv_cache_spec_kind").asStringValue().asString()).isEqualTo("full_attention");
        assertThat(gpu.tokens()).hasSize(16 * gpu.hashes().size());
        VllmKvEventDecoder.Event cpu = events.get(events.size() - 1);
        // Host copies: the fields up to lora_name, the rest defaults.
        assertThat(cpu.fields()).hasSize(7);
        assertThat(cpu.tokens()).isEmpty();
    }

    @Test
    void selfDescribingHostEventsCarryTheChainLikeGpuOnes() {
        ZMQ.Socket sub = streaming(KvEventsConfig.Encoding.MAP, true);
        String prompt = exactPrompt(41);
        completion(cluster.urls().get(0), prompt, null);
        List<Integer> tokenized = new ArrayList<>();
        post(cluster.urls().get(0), "/tokenize", "{\"prompt\":" + JSON.valueToTree(prompt) + "}").get("tokens")
                .forEach(t -> tokenized.add(t.asInt()));
        VllmKvEventDecoder.Event cpu = awaitEvent(sub, "the prompt's first host copy", e -> "CPU".equals(e.medium()) && e.parent() == null
                && containsRun(tokenized, e.tokens()));
        // The first host copy starts the chain: block 0's tokens, then the rest of the prompt in order.
        assertThat(cpu.tokens()).isEqualTo(tokenized.subList(0, cpu.tokens().size()));
        assertThat(cpu.tokens()).hasSize(16 * cpu.hashes().size());
        assertThat(cpu.fields().get("group_idx").asIntegerValue().asInt()).isZero();
    }

    @Test
    void eachDataParallelRankPublishesOnItsOwnPort() {
        String url = start(KvEventsConfig.Encoding.MAP, false, 1, 2, "tcp://*:0", "tcp://*:0");
        SimReplica replica = cluster.replicas().get(0);
        // Port 0: each rank binds an ephemeral port of its own (not 0 + r), and the replica says which.
        List<Integer> pub = replica.kvEventPorts();
        List<Integer> replay = replica.kvEventReplayPorts();
        assertThat(pub).hasSize(2).allMatch(p -> p > 0);
        assertThat(replay).hasSize(2).allMatch(p -> p > 0);
        assertThat(Set.of(pub.get(0), pub.get(1), replay.get(0), replay.get(1))).as("four distinct ports").hasSize(4);
        assertThat(replica.kvEventEndpoints()).containsExactly("tcp://*:" + pub.get(0), "tcp://*:" + pub.get(1));
        assertThat(replica.kvEventReplayEndpoints()).containsExactly("tcp://*:" + replay.get(0), "tcp://*:" + replay.get(1));
        awaitStream(pub.get(1), url, "1");
        VllmKvEventDecoder.Batch batch = VllmKvEventDecoder.decode(received.values().iterator().next());
        assertThat(batch.dataParallelRank()).isEqualTo(1);
    }

    @Test
    void aFixedEndpointIsOffsetByTheRankAsVllmDoesAcrossTheReplicasOfOneProcess() {
        // vLLM's offset_endpoint_port, end to end through the cluster's rank numbering (replica i's engine e is rank
        // i × engines + e). inproc endpoints follow the same rule (a _dp<r> suffix) and need no port that something
        // else could hold; the tcp form (port + r) is KvEventsConfigTest's.
        start(KvEventsConfig.Encoding.MAP, false, 2, 2, "inproc://kv", "inproc://kv-replay");
        assertThat(cluster.replicas().get(0).kvEventEndpoints()).containsExactly("inproc://kv", "inproc://kv_dp1");
        assertThat(cluster.replicas().get(1).kvEventEndpoints()).containsExactly("inproc://kv_dp2", "inproc://kv_dp3");
        assertThat(cluster.replicas().get(1).kvEventReplayEndpoints()).containsExactly("inproc://kv-replay_dp2", "inproc://kv-replay_dp3");
        assertThat(cluster.replicas().get(1).kvEventPorts()).as("no tcp port").containsExactly(0, 0);
    }

    // ---- helpers

    /** One replica of one engine publishing with {@code encoding} (and a replay socket), a SUB socket already receiving. */
    private ZMQ.Socket streaming(KvEventsConfig.Encoding encoding) {
        return streaming(encoding, false);
    }

    private ZMQ.Socket streaming(KvEventsConfig.Encoding encoding, boolean selfDescribing) {
        String url = start(encoding, selfDescribing, 1, 1, "tcp://*:0", "tcp://*:0");
        return awaitStream(cluster.replicas().get(0).kvEventPorts().get(0), url, null);
    }

    private ZMQ.Socket subscribe(int port) {
        ZMQ.Socket sub = zmq.createSocket(SocketType.SUB);
        sub.setReceiveTimeOut(200);
        sub.connect("tcp://127.0.0.1:" + port);
        sub.subscribe(TOPIC.getBytes(StandardCharsets.UTF_8));
        return sub;
    }

    /**
     * A PUB drops what it sends before the subscription reaches it: send small requests until something arrives. (See
     * {@link #replayClient()} for why a silent connection is worth retrying: the test then connects a fresh SUB.)
     */
    private ZMQ.Socket awaitStream(int port, String url, String rank) {
        ZMQ.Socket sub = subscribe(port);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        for (int i = 0; System.nanoTime() < deadline; i++) {
            if (i > 0 && i % 20 == 0) {
                zmq.destroySocket(sub);
                sub = subscribe(port);
            }
            String body = "{\"model\":\"" + MODEL + "\",\"prompt\":" + JSON.valueToTree(exactPrompt(1000 + i).substring(0, 4 * 40))
                    + ",\"max_tokens\":1}";
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/v1/completions")).header("content-type", "application/json");
            if (rank != null) {
                b.header("X-data-parallel-rank", rank);
            }
            send(b.POST(HttpRequest.BodyPublishers.ofString(body)).build());
            if (receiveOne(sub)) {
                return sub;
            }
        }
        throw new AssertionError("no KV event arrived on port " + port + " within " + DEADLINE.toSeconds() + " s of probe requests");
    }

    /** Receives one message (false after the socket's 200 ms timeout); checks the framing. */
    private boolean receiveOne(ZMQ.Socket sub) {
        byte[] topic = sub.recv();
        if (topic == null) {
            return false;
        }
        assertThat(new String(topic, StandardCharsets.UTF_8)).isEqualTo(TOPIC);
        assertThat(sub.hasReceiveMore()).isTrue();
        byte[] seq = sub.recv();
        assertThat(seq).hasSize(8);
        assertThat(sub.hasReceiveMore()).isTrue();
        byte[] payload = sub.recv();
        assertThat(sub.hasReceiveMore()).isFalse();
        received.put(ByteBuffer.wrap(seq).getLong(), payload);
        return true;
    }

    /**
     * Decoded events as they arrive until one matches {@code until} ({@code awaited} says which); returns all of them,
     * the match last. The first may be a probe request's (see {@link #awaitStream}): its later batches can arrive after
     * the one that showed the stream flows.
     */
    private List<VllmKvEventDecoder.Event> collect(ZMQ.Socket sub, String awaited, Predicate<VllmKvEventDecoder.Event> until) {
        List<VllmKvEventDecoder.Event> events = new ArrayList<>();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!receiveOne(sub)) {
                continue;
            }
            byte[] last = null;
            for (byte[] p : received.values()) {
                last = p;
            }
            for (VllmKvEventDecoder.Event e : VllmKvEventDecoder.decode(last).events()) {
                events.add(e);
                if (until.test(e)) {
                    return events;
                }
            }
        }
        throw new AssertionError(awaited + ": did not arrive within " + DEADLINE.toSeconds() + " s; got "
                + events.stream().map(VllmKvEventDecoder.Event::type).toList());
    }

    /** The first event that matches {@code until}, whatever arrived before it. */
    private VllmKvEventDecoder.Event awaitEvent(ZMQ.Socket sub, String awaited, Predicate<VllmKvEventDecoder.Event> until) {
        List<VllmKvEventDecoder.Event> events = collect(sub, awaited, until);
        return events.get(events.size() - 1);
    }

    /** Sends a replay request for {@code from} and reads (seq, payload) frames until (-1, empty). */
    private static Map<Long, byte[]> replay(ZMQ.Socket dealer, long from) {
        dealer.sendMore(new byte[0]);
        dealer.send(ByteBuffer.allocate(8).putLong(from).array());
        Map<Long, byte[]> out = new LinkedHashMap<>();
        while (true) {
            byte[] empty = dealer.recv();
            assertThat(empty).as("replay answered in time").isNotNull().isEmpty();
            long seq = ByteBuffer.wrap(dealer.recv()).getLong();
            byte[] payload = dealer.recv();
            if (seq == -1) {
                assertThat(payload).isEmpty();
                return out;
            }
            out.put(seq, payload);
        }
    }

    /**
     * A DEALER on the replay socket that has been answered once (a request from beyond the last sequence gets only the
     * end marker). JeroMQ 0.6.0 sometimes never reads a fresh connection on the connecting side (the server's
     * handshake bytes stay unread in the socket; seen with {@code ss}), so a client that hears nothing reconnects.
     */
    private ZMQ.Socket replayClient() {
        int replayPort = cluster.replicas().get(0).kvEventReplayPorts().get(0);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            ZMQ.Socket dealer = zmq.createSocket(SocketType.DEALER);
            dealer.setLinger(0);
            dealer.setReceiveTimeOut(2_000);
            dealer.connect("tcp://127.0.0.1:" + replayPort);
            dealer.sendMore(new byte[0]);
            dealer.send(ByteBuffer.allocate(8).putLong(Long.MAX_VALUE).array());
            byte[] empty = dealer.recv();
            if (empty != null) {
                assertThat(ByteBuffer.wrap(dealer.recv()).getLong()).isEqualTo(-1);
                assertThat(dealer.recv()).isEmpty();
                dealer.setReceiveTimeOut((int) DEADLINE.toMillis());
                return dealer;
            }
            zmq.destroySocket(dealer);
        }
        throw new AssertionError("the replay socket on port " + replayPort + " never answered within " + DEADLINE.toSeconds() + " s");
    }

    /** Until the engine holds no request, running or waiting (its snapshot, as /metrics reports it), polled every 10 ms. */
    private void awaitIdle() {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            var s = cluster.replicas().get(0).snapshot();
            if (s.running() == 0 && s.waiting() == 0) {
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("the engine still held requests after " + DEADLINE.toSeconds() + " s: " + cluster.replicas().get(0).snapshot());
    }

    private static boolean containsRun(List<Integer> haystack, List<Integer> run) {
        return !run.isEmpty() && java.util.Collections.indexOfSubList(haystack, run) >= 0;
    }

    /** Exactly {@link #PROMPT_TOKENS} tokens: text without newlines or markers, four characters per token. */
    private static String exactPrompt(long seed) {
        StringBuilder sb = new StringBuilder();
        SplittableRandom r = new SplittableRandom(seed);
        while (sb.length() < 4 * PROMPT_TOKENS) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    private void completion(String url, String prompt, String salt) {
        String body = "{\"model\":\"" + MODEL + "\",\"prompt\":" + JSON.valueToTree(prompt) + ",\"max_tokens\":2"
                + (salt == null ? "" : ",\"cache_salt\":\"" + salt + "\"") + "}";
        post(url, "/v1/completions", body);
    }

    private JsonNode post(String url, String path, String body) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url + path)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        try {
            return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
