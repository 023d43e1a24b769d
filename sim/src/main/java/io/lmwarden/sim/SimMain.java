package io.lmwarden.sim;

import io.lmwarden.sim.dp.BalancerEra;
import io.lmwarden.sim.http.EngineRelease;
import io.lmwarden.sim.kvevents.KvEventsConfig;
import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.common.logging.LogOutput;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** Command line: serves N simulated vLLM replicas on consecutive ports until killed. */
@Command(name = "lmw-sim", mixinStandardHelpOptions = true, versionProvider = SimMain.Version.class,
        description = "Simulated vLLM replicas: vLLM's HTTP API and metrics over a scheduler and prefix-cache model.")
public final class SimMain implements Callable<Integer> {
    @Option(names = "--replicas", description = "Number of replicas (default: ${DEFAULT-VALUE})")
    int replicas = 1;
    @Option(names = "--port", description = "Port of the first replica; replica i listens on port+i; 0 = any free"
            + " (default: ${DEFAULT-VALUE})")
    int port = 8000;
    @Option(names = "--host", description = "Address to bind (default: ${DEFAULT-VALUE})")
    String host = "127.0.0.1";
    @Option(names = "--model", description = "Model the replicas serve (default: ${DEFAULT-VALUE})")
    String model = SimOptions.DEFAULT_MODEL;
    @Option(names = "--served-model-name", arity = "1..*", paramLabel = "NAME",
            description = "Names the replicas answer to instead of --model, like vLLM's --served-model-name A B …;"
                    + " the first labels the metrics")
    List<String> servedModelNames;
    @Option(names = "--profile", description = "Hardware profile: a4000-qwen3-4b, h100-qwen3-coder-30b-a3b or tiny"
            + " (default: ${DEFAULT-VALUE})")
    String profile = SimProfile.A4000_QWEN3_4B;
    @Option(names = "--time-scale", description = "Simulated seconds per wall second (default: ${DEFAULT-VALUE})")
    double timeScale = 1.0;
    @Option(names = "--max-num-seqs", description = "Override the profile's max_num_seqs")
    Integer maxNumSeqs;
    @Option(names = "--kv-blocks", description = "Override the profile's number of KV blocks")
    Integer kvBlocks;
    @Option(names = "--block-size", description = "Override the KV block size in tokens")
    Integer blockSize;
    @Option(names = "--seed", description = "Seed of output texts and lengths (default: ${DEFAULT-VALUE})")
    long seed = 42;
    @Option(names = "--output-length", description = "realistic (seeded, median " + OutputLength.REALISTIC_MEDIAN_TOKENS
            + " tokens, at most max_tokens), fixed (= max_tokens) or uniform (1..max_tokens) (default: ${DEFAULT-VALUE})")
    String outputLength = "realistic";
    @Option(names = "--set", paramLabel = "NAME=VALUE,...",
            description = "Change profile constants for every replica of this process, e.g. prefillMsPerToken=0.6,stepBaseMs=30")
    String set;
    @Option(names = "--engines", description = "Engines behind each replica's one port, like vllm serve"
            + " --data-parallel-size N: the X-data-parallel-rank header picks one, else the internal balancer"
            + " (default: ${DEFAULT-VALUE})")
    int engines = 1;
    @Option(names = "--dp-balancer", description = "vLLM internal balancer era for --engines > 1: legacy"
            + " (waiting*4+running on coordinator counts), blind (local counts only), current (vLLM PR #49204)"
            + " (default: ${DEFAULT-VALUE})")
    String dpBalancer = BalancerEra.CURRENT.flag();
    @Option(names = "--kv-offload-gib", paramLabel = "GIB",
            description = "Host-memory KV tier per engine, GiB, like vLLM's --kv-offloading-size with the native backend"
                    + " (0 = none; default: the profile's, 0)")
    Double kvOffloadGib;
    @Option(names = "--kv-events-config", paramLabel = "JSON",
            description = "vLLM's --kv-events-config JSON, e.g. {\"enable_kv_cache_events\":true,\"publisher\":\"zmq\","
                    + "\"endpoint\":\"tcp://*:5557\",\"replay_endpoint\":\"tcp://*:5558\",\"topic\":\"kv-events\"};"
                    + " engine rank r (replica i's engine e: r = i*engines+e) publishes on the ports + r")
    String kvEventsConfig;
    @Option(names = "--kv-events-encoding", paramLabel = "map|array",
            description = "KV event encoding: map (vLLM PR #42892 and later) or array (older tagged arrays)"
                    + " (default: ${DEFAULT-VALUE})")
    String kvEventsEncoding = "map";
    @Option(names = "--kv-events-self-describing",
            description = "Host-tier (medium CPU) events carry token ids, parent hash and group like GPU ones, as vLLM's"
                    + " offloading connector with self_describing_kv_events (>= 0.24); otherwise hashes only")
    boolean kvEventsSelfDescribing;
    @Option(names = "--enable-lora", description = "Serve LoRA adapters, as vLLM's --enable-lora")
    boolean enableLora;
    @Option(names = "--lora-modules", arity = "1..*", paramLabel = "MODULE",
            description = "LoRA adapters loaded at start, as vLLM's flag: name=path, or JSON"
                    + " {\"name\":…,\"path\":…,\"base_model_name\":…}; needs --enable-lora")
    List<String> loraModules;
    @Option(names = "--max-loras", description = "Adapters one batch may hold (vLLM's max_loras; default: ${DEFAULT-VALUE})")
    int maxLoras = 1;
    @Option(names = "--max-cpu-loras", description = "Adapters kept in CPU memory, >= --max-loras (default: --max-loras)")
    Integer maxCpuLoras;
    @Option(names = "--max-lora-rank", description = "Largest adapter rank, one of 1 8 16 32 64 128 256 320 512; the"
            + " simulator takes every adapter to be of this rank (default: ${DEFAULT-VALUE})")
    int maxLoraRank = 16;
    @Option(names = "--allow-runtime-lora-updating", description = "Serve /v1/load_lora_adapter and /v1/unload_lora_adapter,"
            + " as vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (that variable turns it on too)")
    boolean allowRuntimeLoraUpdating;
    @Option(names = "--scheduling-policy", description = "fcfs or priority, as vLLM's --scheduling-policy: priority orders each"
            + " engine's waiting queue by the requests' priority (lower first, then arrival) and preempts the last by that order"
            + " (default: ${DEFAULT-VALUE})")
    String schedulingPolicy = "fcfs";
    @Option(names = "--engine-version", paramLabel = "VERSION",
            description = "vLLM release the replicas report on GET /version, as vLLM's {\"version\": ...}"
                    + " (default: ${DEFAULT-VALUE}, the operator's default image)")
    String engineVersion = EngineRelease.DEFAULT.value();
    @Option(names = "--log-format", description = "Log line format on stderr: text or json (default: ${DEFAULT-VALUE})")
    String logFormat = "text";

    /** The jar's own version, for --version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lmw-sim " + BuildVersion.of(SimMain.class)};
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimMain()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        SimOptions options;
        EngineRelease release;
        LogOutput log;
        try {
            options = options();
            release = new EngineRelease(engineVersion);
            log = LogOutput.install(logFormat);
        } catch (IllegalArgumentException e) {
            System.err.println("lmw-sim: " + e.getMessage());
            return 2;
        }
        SimCluster cluster = SimCluster.start(options, release);
        // This process is the simulator's own: a crash fault may end it as kill -9 would (exit status 137, no hooks).
        cluster.allowCrash(() -> Runtime.getRuntime().halt(137));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.shutdownLine(SimMain.class.getName(), "shutdown requested (SIGTERM or SIGINT)");
            cluster.close();
            log.shutdownLine(SimMain.class.getName(), "shutdown complete");
            stopped.countDown();
        }, "lmw-sim-shutdown"));
        if (!log.json()) {
            // One "id url" line per replica for scripts; JSON logs carry the same in "simulated replica listening".
            // Its KV-event endpoints as bound come first (JSON logs: "kv events publishing"), so a script that waits
            // for the url line has them too.
            for (SimReplica r : cluster.replicas()) {
                List<String> replays = r.kvEventReplayEndpoints();
                for (int rank = 0; rank < r.kvEventEndpoints().size(); rank++) {
                    System.out.println(r.id() + " kv-events rank=" + rank + " endpoint=" + r.kvEventEndpoints().get(rank)
                            + (replays.isEmpty() ? "" : " replay=" + replays.get(rank)));
                }
                System.out.println(r.id() + " " + r.url());
            }
            System.out.flush();
        }
        stopped.await();
        return 0;
    }

    SimOptions options() {
        SimProfile p = SimProfile.named(profile);
        if (blockSize != null) {
            p = p.withBlockSize(blockSize);
        }
        if (kvBlocks != null) {
            p = p.withKvBlocks(kvBlocks);
        }
        if (maxNumSeqs != null) {
            p = p.withMaxNumSeqs(maxNumSeqs);
        }
        p = ProfileOverrides.apply(p, set);
        if (kvOffloadGib != null) {
            p = p.withKvOffloadGib(kvOffloadGib);
        }
        KvEventsConfig events = kvEventsConfig == null ? KvEventsConfig.DISABLED : KvEventsConfig.parse(kvEventsConfig);
        return SimOptions.defaults().withKvEvents(events.withEncoding(KvEventsConfig.encoding(kvEventsEncoding))
                        .withSelfDescribingHostEvents(kvEventsSelfDescribing)).withReplicas(replicas).withBasePort(port).withHost(host)
                .withServedModelNames(servedModelNames == null || servedModelNames.isEmpty() ? List.of(model) : servedModelNames)
                .withProfile(p).withTimeScale(timeScale).withSeed(seed).withOutputLength(OutputLength.parse(outputLength))
                .withEngines(engines).withDpBalancer(BalancerEra.named(dpBalancer)).withLora(lora())
                .withPriorityScheduling(SimOptions.priorityScheduling("--scheduling-policy", schedulingPolicy));
    }

    /** vLLM reads VLLM_ALLOW_RUNTIME_LORA_UPDATING as on when it is "1" or "true" (any case). */
    static boolean runtimeLoraUpdatingFromEnv(String value) {
        return value != null && java.util.Set.of("1", "true").contains(value.strip().toLowerCase(java.util.Locale.ROOT));
    }

    private io.lmwarden.sim.lora.LoraOptions lora() {
        boolean runtime = allowRuntimeLoraUpdating || runtimeLoraUpdatingFromEnv(System.getenv("VLLM_ALLOW_RUNTIME_LORA_UPDATING"));
        List<io.lmwarden.sim.lora.LoraModule> modules = io.lmwarden.sim.lora.LoraModules.parse(loraModules);
        if (!enableLora) {
            // vLLM ignores the LoRA flags without --enable-lora, except a static module, which fails its start.
            return new io.lmwarden.sim.lora.LoraOptions(false, modules, 1, 1, 16, false, 0, 0);
        }
        return io.lmwarden.sim.lora.LoraOptions.of(modules, maxLoras, maxCpuLoras, maxLoraRank, runtime);
    }
}
