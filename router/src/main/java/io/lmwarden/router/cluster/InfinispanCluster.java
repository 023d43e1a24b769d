package io.lmwarden.router.cluster;

import io.lmwarden.router.config.ClusterSettings;
import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.AdmissionEvidence;
import io.lmwarden.router.placement.admission.PeerEvidence;
import io.lmwarden.router.placement.admission.PeerResident;
import io.lmwarden.router.placement.admission.PeerResidents;
import io.lmwarden.router.placement.admission.SessionFacts;
import org.infinispan.AdvancedCache;
import org.infinispan.Cache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.commons.IllegalLifecycleStateException;
import org.infinispan.context.Flag;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryCreated;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryModified;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryRemoved;
import org.infinispan.notifications.cachelistener.event.CacheEntryEvent;
import org.infinispan.notifications.cachemanagerlistener.annotation.ViewChanged;
import org.infinispan.notifications.cachemanagerlistener.event.ViewChangedEvent;
import org.infinispan.partitionhandling.PartitionHandling;
import org.infinispan.remoting.transport.Address;
import org.infinispan.remoting.transport.jgroups.JGroupsTransport;
import org.infinispan.conflict.MergePolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Router pods as one Infinispan cluster (embedded, JGroups over TCP): replicated caches of the
 * session pins ({@link ClusteredPins}), of what admission knows of each session ({@link ClusteredSessionFacts})
 * and of one load report per member (with its admission evidence). Every member holds them in
 * full, so the request path reads them from local memory; what each pod sees of its peers' load is
 * kept in plain fields, recomputed when a report arrives, and placement reads those.
 *
 * <p>{@link #start} returns once this router has joined and received the pins that exist (Infinispan's
 * initial state transfer), so a router is never ready before it knows the pins. In a partition both
 * sides keep serving with what they hold (availability over consistency: a session placed on two
 * sides meanwhile has two pins); when the sides merge, the larger side's entries win.
 */
public final class InfinispanCluster implements RouterCluster {

    private static final Logger LOG = Logger.getLogger(InfinispanCluster.class.getName());
    static final String PINS = "lmw-pins";
    static final String LOADS = "lmw-loads";
    static final String SHARED = "lmw-shared";
    /** Admission's session facts: key the session, value its fact; replicated and expiring like the pins. */
    static final String FACTS = "lmw-session-facts";
    /** Operators' drains: key the replica id, value who drained it; replicated, so every member sees every drain. */
    static final String DRAINS = "lmw-drains";

    private final DefaultCacheManager manager;
    private final ClusteredPins pins;
    private final ClusteredSessionFacts facts;
    private final AdvancedCache<String, String> loads;
    private final AdvancedCache<String, String> drains;
    private final List<java.util.function.Consumer<Set<String>>> drainWatchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final String self;
    private volatile Map<String, Integer> peerInFlight = Map.of();
    private volatile Map<String, Long> peerBlocks = Map.of();
    private volatile PeerResidency peerResidency = PeerResidency.EMPTY;
    private volatile List<AdmissionEvidence> peerEvidence = List.of();
    private volatile String lastPublished = "";
    private final java.util.concurrent.atomic.AtomicBoolean publishing = new java.util.concurrent.atomic.AtomicBoolean();

    private InfinispanCluster(DefaultCacheManager manager, ClusteredPins pins, ClusteredSessionFacts facts,
                              AdvancedCache<String, String> loads, AdvancedCache<String, String> drains) {
        this.manager = manager;
        this.pins = pins;
        this.facts = facts;
        this.loads = loads;
        this.drains = drains;
        this.self = manager.getAddress().toString();
    }

    /** Joins (or forms) the cluster and learns the existing pins; blocks until then. */
    public static InfinispanCluster start(ClusterSettings settings, int maxEntries, Duration idleTimeout) {
        GlobalConfigurationBuilder global = new GlobalConfigurationBuilder();
        global.transport().defaultTransport()
                .addProperty(JGroupsTransport.CONFIGURATION_XML, JGroupsStack.xml(settings))
                .clusterName(settings.name())
                .nodeName(settings.bind() + ":" + settings.port());
        global.jmx().disable();
        global.metrics().gauges(false).histograms(false);
        DefaultCacheManager manager = new DefaultCacheManager(global.build());
        try {
            manager.defineConfiguration(PINS, replicated().memory().maxCount(maxEntries).build());
            manager.defineConfiguration(FACTS, replicated().memory().maxCount(maxEntries).build());
            manager.defineConfiguration(LOADS, replicated().build());
            manager.defineConfiguration(DRAINS, replicated().build());
            Cache<String, String> pinCache = manager.getCache(PINS);
            ClusteredPins pins = new ClusteredPins(pinCache.getAdvancedCache(), maxEntries, idleTimeout);
            pins.listen();
            Cache<String, String> factCache = manager.getCache(FACTS);
            ClusteredSessionFacts facts = new ClusteredSessionFacts(factCache.getAdvancedCache(), idleTimeout);
            Cache<String, String> loadCache = manager.getCache(LOADS);
            Cache<String, String> drainCache = manager.getCache(DRAINS);
            InfinispanCluster c = new InfinispanCluster(manager, pins, facts, loadCache.getAdvancedCache(), drainCache.getAdvancedCache());
            loadCache.addListener(c.new Reports());
            drainCache.addListener(c.new Drains());
            manager.addListener(c.new Views());
            awaitMergeIfAlone(manager, ListedPeers.of(settings));
            c.recompute();
            LOG.info(() -> "router cluster '" + settings.name() + "' joined as " + c.self + "; members " + manager.getMembers()
                    + "; " + pins.size() + " pins and " + factCache.getAdvancedCache().withFlags(Flag.CACHE_MODE_LOCAL).size()
                    + " session facts learned");
            return c;
        } catch (RuntimeException e) {
            manager.stop();
            throw e;
        }
    }

    /** Longer than MERGE3's longest interval (15 s, jgroups-tcp.xml): time for a merge round to find the peers. */
    private static final long MERGE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(40);

    /**
     * A router that finds itself alone while a listed peer answers on its cluster port has formed a cluster of its own:
     * its join went unanswered within GMS's join timeout (a peer starved of CPU: seen in rolling restarts at load 20,
     * when the restarted router then served with no pins and sessions went NEW elsewhere). MERGE3 joins the two
     * clusters within its interval, the larger side's pins winning; the router waits for that before it serves. A
     * router whose listed peers are all down (the first to start) does not wait.
     */
    private static void awaitMergeIfAlone(DefaultCacheManager manager, ListedPeers peers) {
        if (peers.isEmpty() || manager.getMembers().size() > 1) {
            return;
        }
        long deadline = System.nanoTime() + MERGE_WAIT_NANOS;
        boolean told = false;
        while (manager.getMembers().size() == 1 && System.nanoTime() - deadline < 0 && peers.anyAnswers()) {
            if (!told) {
                LOG.warning("router cluster: joined alone while a listed peer answers; waiting for the clusters to merge before serving");
                told = true;
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (told) {
            LOG.info(() -> "router cluster: " + (manager.getMembers().size() > 1 ? "merged; members " + manager.getMembers()
                    : "still alone after waiting; serving with what it holds"));
        }
    }

    /**
     * Synchronous replication: a write returns once every member applied it. Non-transactional: a
     * conditional write is decided by the key's primary owner.
     */
    private static ConfigurationBuilder replicated() {
        ConfigurationBuilder b = new ConfigurationBuilder();
        b.clustering().cacheMode(CacheMode.REPL_SYNC).remoteTimeout(2, TimeUnit.SECONDS)
                .stateTransfer().awaitInitialTransfer(true).timeout(2, TimeUnit.MINUTES)
                .partitionHandling().whenSplit(PartitionHandling.ALLOW_READ_WRITES).mergePolicy(MergePolicy.PREFERRED_ALWAYS);
        b.statistics().disable();
        return b;
    }

    @Override
    public SessionPins pins() {
        return pins;
    }

    @Override
    public int peerInFlight(String replicaId) {
        return peerInFlight.getOrDefault(replicaId, 0);
    }

    @Override
    public long peerResidentBlocks(String replicaId) {
        return peerBlocks.getOrDefault(replicaId, 0L);
    }

    @Override
    public PeerResidents peerResidents() {
        return new PeerResidents() {
            @Override
            public List<PeerResident> on(String replicaId) {
                return peerResidency.byReplica().getOrDefault(replicaId, List.of());
            }

            @Override
            public boolean holds(String session) {
                return peerResidency.sessions().contains(session);
            }

            @Override
            public boolean runsElsewhere(String session) {
                return peerResidency.running().contains(session);
            }
        };
    }

    @Override
    public SessionFacts sessionFacts() {
        return facts;
    }

    @Override
    public PeerEvidence peerEvidence() {
        return () -> peerEvidence;
    }

    @Override
    public void publish(MemberLoad own) {
        if (!loads.getStatus().allowInvocations()) {
            return; // stopping: the timer may fire once more after the cluster left
        }
        try {
            String json = own.withViewId(loads.getRpcManager().getTransport().getViewId()).toJson();
            // One report in flight at a time: while the peers are slow to take one, the timer's next ticks would
            // otherwise stack up writes (a report changes at nearly every tick while admission is engaged), the
            // replication falls further behind, and the pins' own writes time out behind them. The next tick after
            // this one lands sends the latest.
            if (!json.equals(lastPublished) && publishing.compareAndSet(false, true)) {
                // Remembered only once the others have it: a put that fails while a dead member is still in the view
                // is sent again at the next period, even when nothing else changes (a quiet router's report would
                // otherwise keep the old view id and the members never agree).
                try {
                    loads.withFlags(Flag.IGNORE_RETURN_VALUES).putAsync(self, json).whenComplete((v, failed) -> {
                        if (failed == null) {
                            lastPublished = json;
                        }
                        publishing.set(false);
                    });
                } catch (RuntimeException e) {
                    publishing.set(false);
                    throw e;
                }
            }
        } catch (IllegalLifecycleStateException stopping) {
            LOG.fine("load report not published: the cluster is stopping");
        }
    }

    /** In a replicated cache of its own, started on first use: joining it waits for the values the others hold. */
    @Override
    public synchronized Optional<String> agree(String key, String proposal) {
        if (manager.getCacheConfiguration(SHARED) == null) {
            manager.defineConfiguration(SHARED, replicated().build());
        }
        String existing = manager.<String, String>getCache(SHARED).putIfAbsent(key, proposal);
        return Optional.of(existing == null ? proposal : existing);
    }

    @Override
    public void watchDrains(java.util.function.Consumer<Set<String>> onChange) {
        drainWatchers.add(onChange);
        onChange.accept(drainsNow());
    }

    /** Synchronous: when it returns, every member applied it (and stopped placing there). */
    @Override
    public void drain(String replicaId, boolean drain) {
        if (drain) {
            drains.withFlags(Flag.IGNORE_RETURN_VALUES).put(replicaId, self);
        } else {
            drains.withFlags(Flag.IGNORE_RETURN_VALUES).remove(replicaId);
        }
    }

    private Set<String> drainsNow() {
        return Set.copyOf(drains.withFlags(Flag.CACHE_MODE_LOCAL).keySet());
    }

    @Override
    public ClusterView view() {
        List<Address> members = manager.getMembers();
        Map<String, MemberLoad> reports = reports();
        long myView = loads.getRpcManager().getTransport().getViewId();
        List<ClusterView.Member> rows = new ArrayList<>();
        boolean agree = true;
        Integer pinsSeen = null;
        for (Address a : members) {
            String name = a.toString();
            MemberLoad r = reports.get(name);
            if (r == null) {
                agree = false;
                rows.add(new ClusterView.Member(name, name.equals(self), false, 0, 0, -1));
                continue;
            }
            int inFlight = r.inFlight().values().stream().mapToInt(Integer::intValue).sum();
            rows.add(new ClusterView.Member(name, name.equals(self), true, r.pins(), inFlight, r.viewId()));
            agree &= r.viewId() == myView && (pinsSeen == null || pinsSeen == r.pins());
            pinsSeen = r.pins();
        }
        Address coordinator = manager.getCoordinator();
        return new ClusterView("infinispan", self, coordinator == null ? "" : coordinator.toString(), rows, agree);
    }

    /** Races this router lost when placing a new session (it followed the winner). */
    public long pinRacesLost() {
        return pins.racesLost();
    }

    private Map<String, MemberLoad> reports() {
        Map<String, MemberLoad> m = new HashMap<>();
        for (Map.Entry<String, String> e : loads.withFlags(Flag.CACHE_MODE_LOCAL).entrySet()) {
            try {
                m.put(e.getKey(), MemberLoad.fromJson(e.getValue()));
            } catch (IllegalArgumentException ex) {
                LOG.warning(() -> "ignoring the load report of " + e.getKey() + ": " + ex.getMessage());
            }
        }
        return m;
    }

    /** Sums the reports of the other live members; a member that left counts no more, whether or not its report is gone yet. */
    private void recompute() {
        Set<String> live = manager.getMembers().stream().map(Address::toString).collect(Collectors.toSet());
        Map<String, Integer> inFlight = new HashMap<>();
        Map<String, Long> blocks = new HashMap<>();
        List<MemberLoad> peers = new ArrayList<>();
        List<AdmissionEvidence> evidence = new ArrayList<>();
        reports().forEach((member, r) -> {
            if (!member.equals(self) && live.contains(member)) {
                r.inFlight().forEach((replica, n) -> inFlight.merge(replica, n, Integer::sum));
                r.residentBlocks().forEach((replica, n) -> blocks.merge(replica, n, Long::sum));
                peers.add(r);
                if (r.evidence() != null) {
                    evidence.add(r.evidence());
                }
            }
        });
        peerInFlight = Map.copyOf(inFlight);
        peerBlocks = Map.copyOf(blocks);
        peerResidency = PeerResidency.of(peers);
        peerEvidence = List.copyOf(evidence);
    }

    @Override
    public void close() {
        manager.stop();
    }

    /** A peer's report arrived (or went). */
    @Listener
    public final class Reports {
        @CacheEntryCreated
        @CacheEntryModified
        @CacheEntryRemoved
        public void changed(CacheEntryEvent<String, String> e) {
            if (!e.isPre() && !self.equals(e.getKey())) {
                recompute();
            }
        }
    }

    /** A drain set or taken back through any member's admin API. */
    @Listener(sync = true)
    public final class Drains {
        @CacheEntryCreated
        @CacheEntryModified
        @CacheEntryRemoved
        public void changed(CacheEntryEvent<String, String> e) {
            if (!e.isPre()) {
                Set<String> now = drainsNow();
                drainWatchers.forEach(w -> w.accept(now));
            }
        }
    }

    /** A member left: its in-flight requests are gone with it; the coordinator drops its report. */
    @Listener
    public final class Views {
        @ViewChanged
        public void viewChanged(ViewChangedEvent e) {
            LOG.info(() -> "router cluster view " + e.getViewId() + ": " + e.getNewMembers());
            recompute();
            if (e.getLocalAddress().equals(manager.getCoordinator())) {
                Set<String> live = e.getNewMembers().stream().map(Address::toString).collect(Collectors.toSet());
                for (String member : Set.copyOf(loads.withFlags(Flag.CACHE_MODE_LOCAL).keySet())) {
                    if (!live.contains(member)) {
                        loads.withFlags(Flag.IGNORE_RETURN_VALUES).removeAsync(member);
                    }
                }
            }
        }
    }
}
