package io.lmwarden.router.placement.lora;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.pool.ServedModels.LoraCard;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Loads a LoRA adapter onto a replica that does not list it, when adapter placement wants room for it there
 * ({@code loadAdapters}, off by default): vLLM's {@code POST /v1/load_lora_adapter {"lora_name", "lora_path"}}, which a
 * server started with {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING=True} routes ({@code vllm/frontend/entrypoints/serve/lora/api_router.py}
 * at 055e47c28003156421365af985d676fc921cb075; without it the path is a 404). The path is the adapter's {@code root} as a replica that lists it gives it, so every
 * replica must see the same path (a shared volume, or a Hugging Face id). The router never unloads an adapter: one a
 * pinned session uses must stay, and vLLM evicts idle adapters from GPU slots and CPU memory by itself (LRU).
 *
 * <p>A load is asked once per replica and adapter while it runs; the answer has the replica's {@code /v1/models} read
 * again, so placement sees the adapter listed there at the next check. A replica that answers 404 does not allow runtime
 * loading: it is not asked again (said once in the log and in {@code /api/replicas}). Another failure is retried no
 * sooner than {@link #RETRY_AFTER_NANOS} later.
 */
public final class AdapterLoader {

    private static final Logger LOG = Logger.getLogger(AdapterLoader.class.getName());
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    static final long RETRY_AFTER_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Sends one load request (a POST of the JSON body to the URL); completes with the answer. */
    public interface Sender {
        CompletionStage<Answer> post(String url, String body);
    }

    public record Answer(int status, String body) {
    }

    /** What the router did on one endpoint: the adapters it loaded there, and why it will not load there any more (or null). */
    public record EndpointLoads(List<String> loaded, String refused) {
    }

    private final boolean enabled;
    private final Consumer<String> servedModelsChanged;
    private volatile Sender sender;
    /** "endpoint\u0001adapter" of loads in flight. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** "endpoint\u0001adapter" → when a failed load may be asked again. */
    private final Map<String, Long> retryAt = new ConcurrentHashMap<>();
    private final Map<String, String> refused = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> loaded = new ConcurrentHashMap<>();

    /** @param servedModelsChanged has an endpoint's {@code /v1/models} read again ({@code ReplicaPool.servedModelsChanged}) */
    public AdapterLoader(boolean enabled, Consumer<String> servedModelsChanged) {
        this.enabled = enabled;
        this.servedModelsChanged = servedModelsChanged;
    }

    /** Connects the loader to the router's HTTP client once it exists; until then nothing is loaded. */
    public void attach(Sender s) {
        this.sender = s;
    }

    /** Whether a load of {@code adapter} onto {@code r} may be asked now. */
    public boolean mayLoad(ReplicaView r, String adapter, long nowNanos) {
        if (!enabled || sender == null || refused.containsKey(r.endpointId())) {
            return false;
        }
        String key = r.endpointId() + '\u0001' + adapter;
        Long retry = retryAt.get(key);
        return !inFlight.contains(key) && (retry == null || nowNanos - retry >= 0);
    }

    /** Asks {@code r} to load {@code adapter} from the path its card names; returns whether a request went out. */
    public boolean load(ReplicaView r, String adapter, LoraCard card, long nowNanos) {
        Sender s = sender;
        String endpoint = r.endpointId();
        String key = endpoint + '\u0001' + adapter;
        if (!mayLoad(r, adapter, nowNanos) || !inFlight.add(key)) {
            return false;
        }
        String body = JSON.createObjectNode().put("lora_name", adapter).put("lora_path", card.root()).toString();
        LogFields.info(LOG, "loading LoRA adapter where placement wants room for it", "replica", r.id(), "adapter", adapter,
                "path", card.root());
        s.post(r.url() + "/v1/load_lora_adapter", body).whenComplete((answer, err) -> {
            inFlight.remove(key);
            if (err == null && answer.status() == 200) {
                loaded.computeIfAbsent(endpoint, e -> ConcurrentHashMap.newKeySet()).add(adapter);
                servedModelsChanged.accept(endpoint);
            } else if (err == null && answer.status() == 400 && answer.body().contains("already been loaded")) {
                servedModelsChanged.accept(endpoint);
            } else if (err == null && (answer.status() == 404 || answer.status() == 405)) {
                String why = "its server does not allow runtime LoRA loading (start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True)";
                if (refused.putIfAbsent(endpoint, why) == null) {
                    LogFields.warn(LOG, "the router will not load LoRA adapters on this replica", "endpoint", endpoint, "why", why);
                }
            } else {
                retryAt.put(key, System.nanoTime() + RETRY_AFTER_NANOS);
                LogFields.warn(LOG, "loading a LoRA adapter failed; asked again no sooner than in 30 s", "replica", r.id(),
                        "adapter", adapter, "answer", err != null ? String.valueOf(err) : answer.status() + " " + abbreviated(answer.body()));
            }
        });
        return true;
    }

    public EndpointLoads on(String endpointId) {
        return new EndpointLoads(List.copyOf(new TreeSet<>(loaded.getOrDefault(endpointId, Set.of()))), refused.get(endpointId));
    }

    private static String abbreviated(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
