package io.lmwarden.router.testing;

import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.SimReplica;
import io.lmwarden.sim.dp.BalancerEra;
import io.lmwarden.sim.http.EngineRelease;
import io.lmwarden.sim.kvevents.KvEventsConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Simulated replicas for router tests, each in its own {@link SimCluster} so that one can be
 * stopped alone (a replica that dies). Replica i is listed to the router as {@code sim-i=URL}.
 */
public final class SimPool implements AutoCloseable {

    private final List<SimCluster> clusters = new ArrayList<>();
    private final List<Boolean> running = new ArrayList<>();
    /** How replica i was started, so that it can be started again on its port. */
    private final List<SimOptions> options = new ArrayList<>();
    /** The vLLM release replica i reports on {@code GET /version}. */
    private final List<EngineRelease> releases = new ArrayList<>();
    /** Replica i's KV-event ports {events, replay}, when it publishes them. */
    private final List<int[]> kvPorts = new ArrayList<>();
    /** Sockets holding the ports listed for replicas that publish no events. */
    private final List<Socket> reserved = new ArrayList<>();

    private SimPool() {
    }

    public static SimPool start(int replicas, SimProfile profile, double timeScale) {
        List<Integer> engines = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            engines.add(1);
        }
        return start(engines, profile, timeScale, BalancerEra.CURRENT);
    }

    /** One replica per index, each with the options {@code tweak} makes of the defaults (a scheduling policy, ...). */
    public static SimPool start(int replicas, SimProfile profile, double timeScale, java.util.function.UnaryOperator<SimOptions> tweak) {
        SimPool pool = new SimPool();
        for (int i = 0; i < replicas; i++) {
            SimOptions o = tweak.apply(SimOptions.defaults().withReplicas(1).withProfile(profile).withTimeScale(timeScale).withSeed(1000 + i));
            pool.clusters.add(SimCluster.start(o));
            pool.options.add(o);
            pool.running.add(true);
            pool.releases.add(EngineRelease.DEFAULT);
        }
        return pool;
    }

    /**
     * One simulated API server per element, with that many engines: more than one makes it a
     * {@code vllm serve --data-parallel-size N} server whose internal balancer is {@code era}'s.
     */
    public static SimPool start(List<Integer> enginesPerReplica, SimProfile profile, double timeScale, BalancerEra era) {
        return start(enginesPerReplica, profile, timeScale, era, List.of(SimOptions.DEFAULT_MODEL));
    }

    /** The same, every replica answering to {@code servedModelNames} ({@code --served-model-name}; the first labels the metrics). */
    public static SimPool start(List<Integer> enginesPerReplica, SimProfile profile, double timeScale, BalancerEra era,
                                List<String> servedModelNames) {
        SimPool pool = new SimPool();
        for (int i = 0; i < enginesPerReplica.size(); i++) {
            SimOptions o = SimOptions.defaults().withReplicas(1).withProfile(profile).withTimeScale(timeScale).withSeed(1000 + i)
                    .withEngines(enginesPerReplica.get(i)).withDpBalancer(era).withServedModelNames(servedModelNames);
            pool.clusters.add(SimCluster.start(o));
            pool.options.add(o);
            pool.running.add(true);
            pool.releases.add(EngineRelease.DEFAULT);
        }
        return pool;
    }

    /** One replica per element, reporting that vLLM release on {@code GET /version} ({@link EngineRelease#NONE}: no /version). */
    public static SimPool startWithReleases(SimProfile profile, double timeScale, EngineRelease... releases) {
        SimPool pool = new SimPool();
        for (int i = 0; i < releases.length; i++) {
            SimOptions o = SimOptions.defaults().withReplicas(1).withProfile(profile).withTimeScale(timeScale).withSeed(1000 + i);
            pool.clusters.add(SimCluster.start(o, releases[i]));
            pool.options.add(o);
            pool.running.add(true);
            pool.releases.add(releases[i]);
        }
        return pool;
    }

    /**
     * One one-engine replica per element, each serving the base model and the LoRA adapters its options load
     * ({@code vllm serve --enable-lora --lora-modules …}).
     */
    public static SimPool startWithLora(SimProfile profile, double timeScale, List<io.lmwarden.sim.lora.LoraOptions> lora) {
        SimPool pool = new SimPool();
        for (int i = 0; i < lora.size(); i++) {
            SimOptions o = SimOptions.defaults().withReplicas(1).withProfile(profile).withTimeScale(timeScale).withSeed(1000 + i)
                    .withLora(lora.get(i));
            pool.clusters.add(SimCluster.start(o));
            pool.options.add(o);
            pool.running.add(true);
        }
        return pool;
    }

    /**
     * Replicas that publish vLLM's KV events (map encoding, a replay socket), each on two ports of its own (bound at 0,
     * read back), listed to the router with {@code #kv=…&replay=…}. {@code publishing[i]} false: replica i publishes
     * nothing, but is listed with ports where nothing listens (a publisher the router cannot reach): ports held bound,
     * not listening, for the pool's life, so that nothing else can take them meanwhile.
     */
    public static SimPool startWithKvEvents(SimProfile profile, double timeScale, boolean... publishing) {
        return startWithKvEvents(profile, timeScale, io.lmwarden.sim.lora.LoraOptions.DISABLED, EngineRelease.DEFAULT, publishing);
    }

    /** The same, every replica reporting {@code release} on {@code GET /version}. */
    public static SimPool startWithKvEvents(SimProfile profile, double timeScale, EngineRelease release, boolean... publishing) {
        return startWithKvEvents(profile, timeScale, io.lmwarden.sim.lora.LoraOptions.DISABLED, release, publishing);
    }

    /** The same, every replica also serving the LoRA adapters {@code lora} loads. */
    public static SimPool startWithKvEvents(SimProfile profile, double timeScale, io.lmwarden.sim.lora.LoraOptions lora,
                                            boolean... publishing) {
        return startWithKvEvents(profile, timeScale, lora, EngineRelease.DEFAULT, publishing);
    }

    private static SimPool startWithKvEvents(SimProfile profile, double timeScale, io.lmwarden.sim.lora.LoraOptions lora,
                                             EngineRelease release, boolean... publishing) {
        SimPool pool = new SimPool();
        for (int i = 0; i < publishing.length; i++) {
            SimOptions o = SimOptions.defaults().withReplicas(1).withProfile(profile).withTimeScale(timeScale).withSeed(1000 + i)
                    .withLora(lora);
            int[] ports;
            if (publishing[i]) {
                SimCluster cluster = SimCluster.start(o.withKvEvents(kvEventsOn(0, 0)), release);
                SimReplica replica = cluster.replicas().get(0);
                ports = new int[] {replica.kvEventPorts().get(0), replica.kvEventReplayPorts().get(0)};
                pool.clusters.add(cluster);
                // A restart comes back on the ports it was listed with.
                o = o.withKvEvents(kvEventsOn(ports[0], ports[1]));
            } else {
                pool.clusters.add(SimCluster.start(o, release));
                ports = new int[] {pool.reserveUnreachablePort(), pool.reserveUnreachablePort()};
            }
            pool.options.add(o);
            pool.running.add(true);
            pool.releases.add(release);
            pool.kvPorts.add(ports);
        }
        return pool;
    }

    private static KvEventsConfig kvEventsOn(int events, int replay) {
        return KvEventsConfig.parse("{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\","
                + "\"endpoint\":\"tcp://*:" + events + "\",\"replay_endpoint\":\"tcp://*:" + replay
                + "\",\"topic\":\"kv-events\"}");
    }

    /** A loopback port bound but not listening: a connection to it is refused, and no one else can bind it. */
    private int reserveUnreachablePort() {
        try {
            Socket socket = new Socket();
            reserved.add(socket);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Restarts replica i on its own port as a new process would come back: its cache empty, answering to
     * {@code servedModelNames} from now on.
     */
    public void restart(int i, List<String> servedModelNames) {
        restart(i, servedModelNames, releases.get(i));
    }

    /** The same, reporting {@code release} on {@code GET /version} from now on (an upgrade, or a rollback). */
    public void restart(int i, List<String> servedModelNames, EngineRelease release) {
        int port = java.net.URI.create(url(i)).getPort();
        kill(i);
        SimOptions o = options.get(i).withServedModelNames(servedModelNames).withBasePort(port);
        clusters.set(i, SimCluster.start(o, release));
        options.set(i, o);
        releases.set(i, release);
        running.set(i, true);
    }

    /** How many times replica i (as now running) answered {@code GET /version}. */
    public long versionRequests(int i) {
        return clusters.get(i).replicas().get(0).versionRequests();
    }

    /** Every engine's state of replica i, in rank order. */
    public List<EngineSnapshot> engines(int i) {
        return clusters.get(i).replicas().get(0).engineSnapshots();
    }

    /** Entries for the router's static replica list: {@code sim-i=URL}. */
    public List<String> routerEntries() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < clusters.size(); i++) {
            out.add("sim-" + i + "=" + url(i) + (kvPorts.isEmpty() ? ""
                    : "#kv=" + kvPorts.get(i)[0] + "&replay=" + kvPorts.get(i)[1]));
        }
        return out;
    }

    public String url(int i) {
        return clusters.get(i).urls().get(0);
    }

    /** The engine's own prefix-cache counters summed over running replicas: {queries, hits}. */
    public long[] prefixCounters() {
        long q = 0;
        long h = 0;
        for (int i = 0; i < clusters.size(); i++) {
            if (running.get(i)) {
                for (EngineSnapshot s : engines(i)) {
                    q += s.prefixQueries();
                    h += s.prefixHits();
                }
            }
        }
        return new long[] {q, h};
    }

    /** One replica's own prefix-cache counters: {queries, hits}. */
    public long[] prefixCounters(int i) {
        EngineSnapshot s = clusters.get(i).replicas().get(0).snapshot();
        return new long[] {s.prefixQueries(), s.prefixHits()};
    }

    /** Requests the replica's engine is running right now. */
    public int running(int i) {
        return clusters.get(i).replicas().get(0).snapshot().running();
    }

    public int size() {
        return clusters.size();
    }

    /** Stops one replica as if its process died. */
    public void kill(int i) {
        if (running.get(i)) {
            clusters.get(i).close();
            running.set(i, false);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < clusters.size(); i++) {
            kill(i);
        }
        for (Socket socket : reserved) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // only a reservation
            }
        }
    }
}
