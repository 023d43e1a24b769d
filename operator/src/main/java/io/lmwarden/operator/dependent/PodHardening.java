package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/** Security settings of the pods that run LM Warden's own image (router, simulator): non-root,
 *  read-only root filesystem, no privilege escalation, no capabilities. The JVM writes only to /tmp. */
final class PodHardening {
    /** The distroless "nonroot" uid, also the user of LM Warden's images. */
    static final long NON_ROOT_UID = 65532L;
    static final String TMP_VOLUME = "tmp";

    private PodHardening() {
    }

    static PodSecurityContext podSecurityContext() {
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(NON_ROOT_UID)
                .withRunAsGroup(NON_ROOT_UID)
                .withFsGroup(NON_ROOT_UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }

    static SecurityContext containerSecurityContext() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .build();
    }

    static Volume tmpVolume() {
        return new VolumeBuilder().withName(TMP_VOLUME).withNewEmptyDir().endEmptyDir().build();
    }

    static VolumeMount tmpMount() {
        return new VolumeMountBuilder().withName(TMP_VOLUME).withMountPath("/tmp").build();
    }

    /**
     * vLLM's pod: RuntimeDefault seccomp. Not forced non-root: the official vllm/vllm-openai image runs as
     * root and writes its caches under /root (Hugging Face, Triton, torch.compile), so a fixed uid breaks it.
     */
    static PodSecurityContext vllmPodSecurityContext() {
        return new PodSecurityContextBuilder()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }

    /**
     * vLLM's container: no privilege escalation, every capability dropped (the GPU comes through the device
     * plugin, not a capability). The root filesystem stays writable: vLLM compiles kernels into caches at
     * run time and writes the model cache's lock files, /dev/shm and /tmp.
     */
    static SecurityContext vllmContainerSecurityContext() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withPrivileged(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }
}
