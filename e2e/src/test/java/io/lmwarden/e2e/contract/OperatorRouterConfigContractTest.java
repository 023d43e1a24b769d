package io.lmwarden.e2e.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.lmwarden.common.Durations;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.dependent.RouterConfigMapDependent;
import io.lmwarden.operator.dependent.RouterDeploymentDependent;
import io.lmwarden.operator.dependent.RouterSettings;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentSpec;
import io.lmwarden.operator.model.RouterSpec;
import io.lmwarden.operator.model.SecretKeySpec;
import io.lmwarden.router.config.ConfigResolver;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.Setting;
import io.lmwarden.router.config.SettingsTable;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.placement.policy.PolicyFactory;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator and the router agree, without Docker: what the operator renders for a router (its
 * ConfigMap's {@code router.yaml} and its container's args) goes through the router's own
 * {@link ConfigResolver} and comes out as the settings the ModelDeployment asked for; every policy
 * name the CRD allows is one the router builds, and every policy the router has is allowed by the CRD.
 * Only the router's config and placement classes are loaded here (no Vert.x), next to the operator's.
 */
class OperatorRouterConfigContractTest {

    private static final Path CRD = Path.of("..", "crds", "modeldeployments.lmwarden.io-v1.yml");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("registry.example/lmw/router:1", "IfNotPresent");

    /** The CRD's router.properties as the API server validates them. */
    private static JsonNode routerSchema() throws Exception {
        JsonNode crd = YAML.readTree(Files.readAllBytes(CRD));
        return crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/router/properties");
    }

    /** The names an {@code ^(a|b|c)$} pattern allows. */
    private static Set<String> alternatives(String pattern) {
        Matcher m = Pattern.compile("^\\^\\(([^)]*)\\)\\$$").matcher(pattern);
        assertThat(m.matches()).as("policy pattern %s is a plain list of names", pattern).isTrue();
        return new TreeSet<>(Arrays.asList(m.group(1).split("\\|")));
    }

    private static ModelDeployment deployment(String policy, String spill, String idleTimeout, boolean affinity) {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("Qwen/Qwen3-4B-Instruct-2507");
        spec.setDataParallelSize(4);
        spec.setTensorParallelSize(1);
        spec.setMaxNumSeqs(48);
        spec.setHfTokenSecret(new SecretKeySpec("hf-token", null));
        RouterSpec router = new RouterSpec();
        router.setPolicy(policy);
        router.setSpillThreshold(spill.equals("auto") ? new IntOrString("auto") : new IntOrString(Integer.parseInt(spill)));
        router.setSessionIdleTimeout(idleTimeout);
        router.setAffinity(affinity);
        spec.setRouter(router);
        ModelDeployment md = new ModelDeployment();
        md.setMetadata(new ObjectMetaBuilder().withName("agents").withNamespace("team-a").withGeneration(1L).build());
        md.setSpec(spec);
        return md;
    }

    /** What the router's command line would give ConfigResolver: every {@code --flag value} pair of the args. */
    private static Map<Setting<?>, String> flags(List<String> args) {
        Map<Setting<?>, String> flags = new HashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            String flag = args.get(i);
            Setting<?> option = SettingsTable.ALL.stream().filter(o -> o.flag().equals(flag)).findFirst()
                    .orElseThrow(() -> new AssertionError("the operator passes " + flag + ", which the router does not know"));
            assertThat(i + 1).as("value of %s", flag).isLessThan(args.size());
            flags.put(option, args.get(i + 1));
        }
        return flags;
    }

    private static RouterConfig resolve(ModelDeployment md, Path dir) throws Exception {
        String yaml = new RouterConfigMapDependent(DEFAULTS).desired(md).getData().get(RouterSettings.CONFIG_FILE);
        Path file = Files.writeString(dir.resolve(RouterSettings.CONFIG_FILE), yaml);
        Container router = new RouterDeploymentDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<Setting<?>, String> flags = flags(router.getArgs());
        assertThat(flags.get(SettingsTable.CONFIG)).isEqualTo(RouterSettings.CONFIG_DIR + "/" + RouterSettings.CONFIG_FILE);
        return ConfigResolver.resolve(flags, Map.of(), ConfigResolver.readYaml(file));
    }

    @Test
    void everyPolicyTheCrdAllowsIsOneTheRouterBuildsAndBack() throws Exception {
        Set<String> allowed = alternatives(routerSchema().at("/policy/pattern").asText());
        assertThat(allowed).as("policies the CRD allows vs the router's").isEqualTo(new TreeSet<>(PolicyFactory.NAMES));
        PolicyFactory factory = new PolicyFactory(new SessionHomes(new AffinityTable(10, Duration.ofMinutes(1))), 32,
                new TtftEstimator(new PrefixIndexes(38_400), new PrefillRates(0.2), 32, 6400), 1);
        for (String name : allowed) {
            assertThat(factory.create(name, SpillThreshold.AUTO).name()).isEqualTo(name);
        }
    }

    @Test
    void theRenderedConfigMapAndArgsResolveToWhatTheDeploymentAskedFor(@TempDir Path dir) throws Exception {
        String durationPattern = routerSchema().at("/sessionIdleTimeout/pattern").asText();
        Set<String> policies = alternatives(routerSchema().at("/policy/pattern").asText());
        for (String policy : policies) {
            for (String idle : List.of("45m", "500ms", "2h", "90s")) {
                assertThat(idle).as("the CRD accepts %s", idle).matches(durationPattern);
                for (String spill : List.of("auto", "7")) {
                    boolean affinity = !policy.equals("round-robin");
                    RouterConfig c = resolve(deployment(policy, spill, idle, affinity), dir);
                    String what = policy + "/" + idle + "/" + spill;
                    assertThat(c.placement().policy()).as(what).isEqualTo(policy);
                    assertThat(c.placement().spillThreshold().toString()).as(what).isEqualTo(spill);
                    assertThat(c.placement().sessionIdleTimeout()).as(what).isEqualTo(Durations.parse(idle));
                    assertThat(c.placement().affinity()).as(what).isEqualTo(affinity);
                    assertThat(c.placement().maxNumSeqs()).as(what).isEqualTo(48);
                    assertThat(c.server().port()).isEqualTo(RouterSettings.PORT);
                    assertThat(c.discovery().k8sService()).hasValueSatisfying(s -> assertThat(s).startsWith("agents"));
                    assertThat(c.discovery().namespace()).contains("team-a");
                    assertThat(c.discovery().replicas()).isEmpty();
                }
            }
        }
    }

    /**
     * Every leaf of the CRD's {@code router} is either a router setting the operator renders (here, with the setting it
     * becomes) or says why it is none: a field added to one side without the other fails here.
     */
    private static final Map<String, Setting<?>> ROUTER_SETTING_OF_FIELD = Map.ofEntries(
            Map.entry("policy", io.lmwarden.router.config.PlacementSettings.POLICY),
            Map.entry("spillThreshold", io.lmwarden.router.config.PlacementSettings.SPILL_THRESHOLD),
            Map.entry("affinity", io.lmwarden.router.config.PlacementSettings.AFFINITY),
            Map.entry("sessionIdleTimeout", io.lmwarden.router.config.PlacementSettings.SESSION_IDLE_TIMEOUT),
            Map.entry("shutdownGrace", io.lmwarden.router.config.ServerSettings.SHUTDOWN_GRACE),
            Map.entry("admission.enabled", io.lmwarden.router.config.AdmissionSettings.ADMISSION),
            Map.entry("admission.engage", io.lmwarden.router.config.AdmissionSettings.ENGAGE),
            Map.entry("admission.kvBudget", io.lmwarden.router.config.AdmissionSettings.KV_BUDGET),
            Map.entry("admission.residencyIdle", io.lmwarden.router.config.AdmissionSettings.RESIDENCY_IDLE),
            Map.entry("admission.residencySlice", io.lmwarden.router.config.AdmissionSettings.RESIDENCY_SLICE),
            Map.entry("admission.queueMax", io.lmwarden.router.config.AdmissionSettings.QUEUE_MAX),
            Map.entry("admission.queueTimeout", io.lmwarden.router.config.AdmissionSettings.QUEUE_TIMEOUT),
            Map.entry("admission.queueWaitBound", io.lmwarden.router.config.AdmissionSettings.QUEUE_WAIT_BOUND),
            Map.entry("admission.queueKeepAlive", io.lmwarden.router.config.AdmissionSettings.QUEUE_KEEP_ALIVE),
            Map.entry("admission.queueFailFast", io.lmwarden.router.config.AdmissionSettings.QUEUE_FAIL_FAST));

    /** Router fields that are not router settings: the pod (image, replicas, resources), Secrets, and the engines' side. */
    private static final Set<String> NOT_ROUTER_SETTINGS = Set.of(
            "image", "replicas", "resources.claims", "resources.limits", "resources.requests",
            // Read from a Secret into the router's environment, not written into its config.
            "adminTokenSecret.name", "adminTokenSecret.key", "tenantSecret.name", "tenantSecret.key",
            // The engines publish KV events (vLLM's --kv-events-config, its hash algorithm); the router finds the
            // publishers in the replica Service's EndpointSlices and follows them with its own kvEvents setting on.
            "kvEvents.enabled", "kvEvents.hashAlgorithm");

    private static void leaves(JsonNode properties, String prefix, Map<String, JsonNode> out) {
        properties.fields().forEachRemaining(e -> {
            JsonNode p = e.getValue();
            if (p.path("type").asText().equals("object") && p.has("properties")) {
                leaves(p.get("properties"), prefix + e.getKey() + ".", out);
            } else {
                out.put(prefix + e.getKey(), p);
            }
        });
    }

    private static Map<String, JsonNode> routerFields() throws Exception {
        Map<String, JsonNode> fields = new java.util.TreeMap<>();
        leaves(routerSchema(), "", fields);
        return fields;
    }

    private static boolean routerAccepts(Setting<?> setting, String value) {
        try {
            setting.check(cast(setting.parse(value)));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

    @Test
    void everyRouterFieldOfTheCrdIsARouterSettingOrSaysWhyNot() throws Exception {
        Set<String> unexplained = new TreeSet<>(routerFields().keySet());
        unexplained.removeAll(ROUTER_SETTING_OF_FIELD.keySet());
        unexplained.removeAll(NOT_ROUTER_SETTINGS);
        assertThat(unexplained).as("CRD router fields neither mapped to a router setting nor explained").isEmpty();
        assertThat(routerFields().keySet()).as("mapped fields the CRD lacks").containsAll(ROUTER_SETTING_OF_FIELD.keySet());
    }

    /** A default written in the CRD is the router's own, so that leaving a field out and writing its default agree. */
    @Test
    void theCrdsDefaultsOfRouterFieldsAreTheRoutersDefaults() throws Exception {
        Map<String, JsonNode> fields = routerFields();
        ROUTER_SETTING_OF_FIELD.forEach((field, setting) -> {
            JsonNode d = fields.get(field).get("default");
            if (d != null) {
                assertThat(setting.parse(d.asText())).as("default of router.%s vs the router's %s", field, setting.key())
                        .isEqualTo(setting.defaultValue());
            }
        });
    }

    /**
     * What the CRD's schema accepts of a router field, the router accepts, and the other way round at the edges: a
     * minimum or maximum is the router's range, a duration pattern accepts no duration the router refuses.
     */
    @Test
    void theCrdsRangesOfRouterFieldsAreTheRoutersRanges() throws Exception {
        Map<String, JsonNode> fields = routerFields();
        List<String> disagreements = new java.util.ArrayList<>();
        ROUTER_SETTING_OF_FIELD.forEach((field, setting) -> {
            JsonNode f = fields.get(field);
            boolean integer = f.path("type").asText().equals("integer");
            double step = integer ? 1 : 0.001;
            if (f.has("minimum")) {
                double min = f.get("minimum").asDouble();
                boolean exclusive = f.path("exclusiveMinimum").asBoolean(false);
                String atEdge = number(exclusive ? min + step : min, integer);
                String beyond = number(exclusive ? min : min - step, integer);
                if (!routerAccepts(setting, atEdge)) {
                    disagreements.add(field + ": the CRD accepts " + atEdge + ", the router refuses it");
                }
                if (routerAccepts(setting, beyond)) {
                    disagreements.add(field + ": the router accepts " + beyond + ", the CRD refuses it");
                }
            }
            if (f.has("maximum")) {
                double max = f.get("maximum").asDouble();
                if (!routerAccepts(setting, number(max, integer))) {
                    disagreements.add(field + ": the CRD accepts " + number(max, integer) + ", the router refuses it");
                }
                if (routerAccepts(setting, number(max + step, integer))) {
                    disagreements.add(field + ": the router accepts " + number(max + step, integer) + ", the CRD refuses it");
                }
            }
            if (f.path("pattern").asText().contains("(ms|s|m|h)")) {
                for (String d : List.of("0s", "0ms", "1ms", "15s", "10m", "2h")) {
                    if (d.matches(f.get("pattern").asText()) && !routerAccepts(setting, d)) {
                        disagreements.add(field + ": the CRD accepts " + d + ", the router refuses it");
                    }
                }
            }
        });
        assertThat(disagreements).isEmpty();
    }

    private static String number(double v, boolean integer) {
        return integer ? Long.toString(Math.round(v)) : Double.toString(v);
    }

    /** Every admission field set in the spec reaches the router as the setting it maps to. */
    @Test
    void everyAdmissionFieldReachesTheRouter(@TempDir Path dir) throws Exception {
        ModelDeployment md = deployment("affinity", "auto", "2h", true);
        io.lmwarden.operator.model.AdmissionSpec a = new io.lmwarden.operator.model.AdmissionSpec();
        a.setEnabled(true);
        a.setKvBudget(0.75);
        a.setResidencyIdle("20s");
        a.setResidencySlice("7m");
        a.setQueueMax(77);
        a.setQueueTimeout("90s");
        a.setQueueKeepAlive("4s");
        a.setQueueWaitBound("45s");
        a.setQueueFailFast(false);
        a.setEngage("always");
        md.getSpec().getRouter().setAdmission(a);
        RouterConfig c = resolve(md, dir);
        assertThat(c.admission().enabled()).isTrue();
        assertThat(c.admission().kvBudget()).isEqualTo(0.75);
        assertThat(c.admission().residencyIdle()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.admission().residencySlice()).isEqualTo(Duration.ofMinutes(7));
        assertThat(c.admission().queueMax()).isEqualTo(77);
        assertThat(c.admission().queueTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.admission().queueKeepAlive()).isEqualTo(Duration.ofSeconds(4));
        assertThat(c.admission().queueWaitBound()).isEqualTo(Duration.ofSeconds(45));
        assertThat(c.admission().queueFailFast()).isFalse();
        assertThat(c.admission().engage()).isEqualTo("always");
    }
}
