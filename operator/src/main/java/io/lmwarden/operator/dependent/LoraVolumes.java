package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The PersistentVolumeClaims holding LoRA adapters, as volumes of a vLLM replica pod: each claim once ({@code lora-<i>}),
 * mounted read-only at {@link LoraServing#mountPath}. A claim that is also {@code modelCache.claimName} is not a second
 * volume: the model cache's volume is mounted there again, read-only.
 */
final class LoraVolumes {
    private final List<String> claims;
    private final Optional<String> modelCacheClaim;

    LoraVolumes(Optional<LoraServing> lora, Optional<String> modelCacheClaim) {
        this.claims = lora.map(LoraServing::claims).orElse(List.of());
        this.modelCacheClaim = modelCacheClaim;
    }

    List<Volume> volumes() {
        return IntStream.range(0, claims.size()).filter(i -> !isModelCache(claims.get(i)))
                .mapToObj(i -> new VolumeBuilder().withName(volumeName(i))
                        .withNewPersistentVolumeClaim().withClaimName(claims.get(i)).withReadOnly(true).endPersistentVolumeClaim().build())
                .toList();
    }

    List<VolumeMount> mounts() {
        List<VolumeMount> mounts = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            String claim = claims.get(i);
            mounts.add(new VolumeMountBuilder().withName(isModelCache(claim) ? ReplicaPodTemplate.MODEL_CACHE_VOLUME : volumeName(i))
                    .withMountPath(LoraServing.mountPath(claim)).withReadOnly(true).build());
        }
        return mounts;
    }

    private boolean isModelCache(String claim) {
        return modelCacheClaim.filter(claim::equals).isPresent();
    }

    private static String volumeName(int index) {
        return "lora-" + index;
    }
}
