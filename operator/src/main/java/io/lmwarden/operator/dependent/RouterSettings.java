package io.lmwarden.operator.dependent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The router's configuration for one ModelDeployment, rendered twice: as {@code router.yaml} in the
 * ConfigMap and as command-line flags. The flags carry the settings that tie the router to its
 * replicas, so a router started with an older ConfigMap still finds the right Service.
 */
public final class RouterSettings {
    public static final int PORT = 8000;
    public static final String CONFIG_DIR = "/etc/lmw";
    public static final String CONFIG_FILE = "router.yaml";

    private final EffectiveSpec spec;
    private final ResourceNames names;

    public RouterSettings(EffectiveSpec spec, ResourceNames names) {
        this.spec = spec;
        this.names = names;
    }

    /** Arguments after {@code java -jar /app/lmw-router.jar}. */
    public List<String> args() {
        EffectiveSpec.Router router = spec.router();
        List<String> args = new ArrayList<>(List.of(
                "--port", Integer.toString(PORT),
                "--k8s-service", names.replicaService(),
                "--namespace", names.namespace(),
                "--policy", router.policy(),
                "--spill-threshold", router.spillThreshold(),
                "--session-idle-timeout", router.sessionIdleTimeout(),
                "--affinity", Boolean.toString(router.affinity()),
                "--config", CONFIG_DIR + "/" + CONFIG_FILE));
        if (RouterClustered.clustered(spec)) {
            // One cluster per ModelDeployment; the pod IP comes in LMW_CLUSTER_BIND.
            args.addAll(List.of("--cluster", "dns:" + names.routerPeersDns(),
                    "--cluster-port", Integer.toString(RouterPeerServiceDependent.CLUSTER_PORT),
                    "--cluster-name", names.namespace() + "/" + names.name()));
        }
        return List.copyOf(args);
    }

    /** The router's YAML config file. Only keys the router knows: it rejects unknown ones at start-up. */
    public String configYaml() {
        EffectiveSpec.Router router = spec.router();
        StringBuilder yaml = new StringBuilder()
                .append("# Written by the LM Warden operator for ModelDeployment ").append(names.name()).append('\n')
                .append("port: ").append(PORT).append('\n')
                .append("k8sService: ").append(quoted(names.replicaService())).append('\n')
                .append("namespace: ").append(quoted(names.namespace())).append('\n')
                .append("policy: ").append(quoted(router.policy())).append('\n')
                .append("spillThreshold: ").append(quoted(router.spillThreshold())).append('\n')
                .append("affinity: ").append(router.affinity()).append('\n')
                .append("sessionIdleTimeout: ").append(quoted(router.sessionIdleTimeout())).append('\n')
                // Always written: the pod's terminationGracePeriodSeconds is computed from it.
                .append("shutdownGrace: ").append(quoted(router.shutdownGrace())).append('\n');
        spec.maxNumSeqs().ifPresent(n -> yaml.append("maxNumSeqs: ").append(n).append('\n'));
        // The router places adapter sessions by free slots; it reads max_lora from the engines' metrics once they publish it.
        spec.lora().ifPresent(l -> yaml.append("maxLoras: ").append(l.maxLoras()).append('\n'));
        EffectiveSpec.Admission a = router.admission();
        a.enabled().ifPresent(v -> yaml.append("admission: ").append(v).append('\n'));
        a.kvBudget().ifPresent(v -> yaml.append("kvBudget: ").append(v).append('\n'));
        a.residencyIdle().ifPresent(v -> yaml.append("residencyIdle: ").append(quoted(v)).append('\n'));
        a.residencySlice().ifPresent(v -> yaml.append("residencySlice: ").append(quoted(v)).append('\n'));
        a.queueMax().ifPresent(v -> yaml.append("queueMax: ").append(v).append('\n'));
        a.queueTimeout().ifPresent(v -> yaml.append("queueTimeout: ").append(quoted(v)).append('\n'));
        a.queueWaitBound().ifPresent(v -> yaml.append("queueWaitBound: ").append(quoted(v)).append('\n'));
        a.queueKeepAlive().ifPresent(v -> yaml.append("queueKeepAlive: ").append(quoted(v)).append('\n'));
        a.queueFailFast().ifPresent(v -> yaml.append("queueFailFast: ").append(v).append('\n'));
        a.engage().ifPresent(v -> yaml.append("admissionEngage: ").append(quoted(v)).append('\n'));
        return yaml.toString();
    }

    /** Changes whenever the config file does; put on the pod template so routers restart to pick it up. */
    public String configHash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(configYaml().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
