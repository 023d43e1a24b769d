package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.lmwarden.operator.model.Defaults;
import io.lmwarden.operator.model.LoraAdapterSpec;
import io.lmwarden.operator.model.LoraSpec;
import io.lmwarden.operator.model.LoraVolumeSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code spec.lora} with defaults applied and checked: the adapters every replica serves and vLLM's LoRA limits, as the flags
 * and environment of {@code vllm serve} (the simulator takes the same ones). The forms and limits are vLLM's, read in its
 * source (operator/README.md, "LoRA adapters", names the files and commits).
 *
 * @param maxCpuLoras empty: vLLM's default, {@code maxLoras}
 */
public record LoraServing(List<Adapter> adapters, int maxLoras, int maxLoraRank, Optional<Integer> maxCpuLoras, boolean runtimeUpdating) {

    /** vLLM serves {@code /v1/load_lora_adapter} and {@code /v1/unload_lora_adapter} when this is {@code 1} or {@code true}. */
    public static final String RUNTIME_UPDATING_ENV = "VLLM_ALLOW_RUNTIME_LORA_UPDATING";
    /** Where the claims holding adapters are mounted: {@code <root>/<claimName>}. */
    public static final String MOUNT_ROOT = "/lora-adapters";
    /** The flags a LoRA spec sets; {@code extraArgs} may not repeat them. */
    static final String[] FLAGS = {"--enable-lora", "--lora-modules", "--max-loras", "--max-lora-rank", "--max-cpu-loras"};

    /**
     * One adapter and where its weights are.
     *
     * @param huggingFace a Hugging Face repository id, or empty for an adapter on a claim
     * @param claimName   the claim holding the adapter, or empty for a Hugging Face adapter
     * @param pathInClaim the adapter's directory inside the claim, empty for its root
     */
    public record Adapter(String name, Optional<String> huggingFace, Optional<String> claimName, String pathInClaim) {

        /** What vLLM is given as the adapter's path: vLLM downloads a Hugging Face id that is no local path
         *  ({@code get_adapter_absolute_path}), and reads a mounted directory as it is. */
        public String vllmPath() {
            return huggingFace.orElseGet(() -> mountPath(claimName.orElseThrow()) + (pathInClaim.isEmpty() ? "" : "/" + pathInClaim));
        }
    }

    /** Where a claim holding adapters is mounted in the vLLM container. */
    static String mountPath(String claimName) {
        return MOUNT_ROOT + "/" + claimName;
    }

    /**
     * @param servedModelName the base model's name, which no adapter may take
     * @throws IllegalArgumentException naming the field and what to fix
     */
    static Optional<LoraServing> of(LoraSpec spec, String servedModelName) {
        if (spec == null) {
            return Optional.empty();
        }
        List<Adapter> adapters = adapters(spec.getAdapters(), servedModelName);
        boolean runtimeUpdating = Boolean.TRUE.equals(spec.getRuntimeUpdating());
        if (adapters.isEmpty() && !runtimeUpdating) {
            throw new IllegalArgumentException("spec.lora has no adapters and runtimeUpdating is off, so no adapter could ever be served: "
                    + "list spec.lora.adapters, or set spec.lora.runtimeUpdating: true to load them at run time");
        }
        int maxLoras = spec.getMaxLoras() == null ? Integer.parseInt(Defaults.LORA_MAX_LORAS) : spec.getMaxLoras();
        if (maxLoras < 1) {
            throw new IllegalArgumentException("spec.lora.maxLoras must be at least 1, got " + maxLoras);
        }
        int rank = spec.getMaxLoraRank() == null ? Integer.parseInt(Defaults.LORA_MAX_LORA_RANK) : spec.getMaxLoraRank();
        if (!LoraSpec.MAX_LORA_RANKS.contains(rank)) {
            throw new IllegalArgumentException("spec.lora.maxLoraRank must be one of " + LoraSpec.MAX_LORA_RANKS + " (vLLM's max_lora_rank), got "
                    + rank);
        }
        Optional<Integer> maxCpuLoras = Optional.ofNullable(spec.getMaxCpuLoras());
        if (maxCpuLoras.isPresent() && maxCpuLoras.get() < maxLoras) {
            throw new IllegalArgumentException("spec.lora.maxCpuLoras (" + maxCpuLoras.get() + ") must be at least spec.lora.maxLoras ("
                    + maxLoras + "): vLLM keeps every adapter of a batch in CPU memory too");
        }
        return Optional.of(new LoraServing(adapters, maxLoras, rank, maxCpuLoras, runtimeUpdating));
    }

    private static List<Adapter> adapters(List<LoraAdapterSpec> specs, String servedModelName) {
        List<Adapter> adapters = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; specs != null && i < specs.size(); i++) {
            String field = "spec.lora.adapters[" + i + "]";
            Adapter adapter = adapter(specs.get(i), field);
            if (!names.add(adapter.name())) {
                throw new IllegalArgumentException(field + ".name '" + adapter.name() + "' is taken by an earlier adapter: adapter names "
                        + "are model names and must be unique");
            }
            if (adapter.name().equals(servedModelName)) {
                throw new IllegalArgumentException(field + ".name '" + adapter.name() + "' is the base model's served name: requests for it "
                        + "could not say whether they mean the model or the adapter; rename the adapter");
            }
            adapters.add(adapter);
        }
        return List.copyOf(adapters);
    }

    private static Adapter adapter(LoraAdapterSpec spec, String field) {
        if (spec == null || spec.getName() == null || spec.getName().isBlank()) {
            throw new IllegalArgumentException(field + ".name is required: the model name clients use for the adapter");
        }
        String name = spec.getName();
        if (!name.matches(LoraAdapterSpec.NAME_PATTERN)) {
            throw new IllegalArgumentException(field + ".name must be letters, digits and . _ - / (starting with a letter or digit), got '"
                    + name + "'");
        }
        boolean fromHub = spec.getHuggingFace() != null && !spec.getHuggingFace().isBlank();
        if (fromHub == (spec.getVolume() != null)) {
            throw new IllegalArgumentException(field + " needs exactly one source: huggingFace (a repository id) or volume "
                    + "(claimName and path)" + (fromHub ? ", not both" : ""));
        }
        if (fromHub) {
            if (!spec.getHuggingFace().matches(LoraAdapterSpec.HUGGING_FACE_ID_PATTERN)) {
                throw new IllegalArgumentException(field + ".huggingFace must be a repository id such as org/adapter, got '"
                        + spec.getHuggingFace() + "'");
            }
            return new Adapter(name, Optional.of(spec.getHuggingFace()), Optional.empty(), "");
        }
        LoraVolumeSpec volume = spec.getVolume();
        if (volume.getClaimName() == null || volume.getClaimName().isBlank()) {
            throw new IllegalArgumentException(field + ".volume.claimName is required: an existing PersistentVolumeClaim");
        }
        String path = volume.getPath() == null ? "" : volume.getPath();
        if (!path.isEmpty() && !path.matches(LoraVolumeSpec.PATH_PATTERN)) {
            throw new IllegalArgumentException(field + ".volume.path must be a relative directory inside the claim (segments of letters, "
                    + "digits and . _ -, none starting with a dot), got '" + path + "'");
        }
        return new Adapter(name, Optional.empty(), Optional.of(volume.getClaimName()), path);
    }

    /** The flags after the operator's others and before {@code extraArgs}; {@code --lora-modules} takes every adapter at once, as
     *  vLLM's parser keeps only the last occurrence of the flag. */
    public List<String> args() {
        List<String> args = new ArrayList<>(List.of("--enable-lora"));
        if (!adapters.isEmpty()) {
            args.add("--lora-modules");
            // name=path, the form every vLLM release parses; names and paths hold no '=' or ',' (the schema's patterns), which would
            // make vLLM's parser take the item for JSON.
            adapters.forEach(a -> args.add(a.name() + "=" + a.vllmPath()));
        }
        args.addAll(List.of("--max-loras", Integer.toString(maxLoras), "--max-lora-rank", Integer.toString(maxLoraRank)));
        maxCpuLoras.ifPresent(n -> args.addAll(List.of("--max-cpu-loras", n.toString())));
        return List.copyOf(args);
    }

    /** The environment the flags cannot give: runtime updating is a variable in vLLM. */
    public List<EnvVar> env() {
        return runtimeUpdating ? List.of(new EnvVarBuilder().withName(RUNTIME_UPDATING_ENV).withValue("True").build()) : List.of();
    }

    /** The claims holding adapters, each once, in the order the adapters name them. */
    public List<String> claims() {
        return adapters.stream().flatMap(a -> a.claimName().stream()).distinct().toList();
    }
}
