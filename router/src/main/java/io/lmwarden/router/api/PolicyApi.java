package io.lmwarden.router.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.placement.policy.PolicyHolder;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** {@code GET}/{@code PUT /api/policy}: the policy in force, its spill threshold and admission, switchable at run time. */
public final class PolicyApi {

    private final PolicyHolder policy;
    private final AdmissionController admission;

    public PolicyApi(PolicyHolder policy, AdmissionController admission) {
        this.policy = policy;
        this.admission = admission;
    }

    public void get(RoutingContext rc) {
        JsonReplies.send(rc, 200, view());
    }

    /** What {@code GET /api/policy} answers, and the head of {@code /api/replicas}. */
    Map<String, Object> view() {
        PolicyHolder.Current c = policy.current();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", c.policy().name());
        m.put("affinity", c.policy().pinsSessions());
        m.put("spillThreshold", c.spillThreshold().toString());
        m.put("spillThresholdValue", c.policy().spillThreshold().isPresent() ? Integer.valueOf(c.policy().spillThreshold().getAsInt()) : null);
        m.put("policies", PlacementSettings.POLICIES);
        m.put("admission", admission.enabled());
        return m;
    }

    /**
     * Switches the policy, its spill threshold and admission. Each field is read by its setting
     * ({@link PlacementSettings#POLICY}, {@link PlacementSettings#SPILL_THRESHOLD}, {@link AdmissionSettings#ADMISSION}),
     * as a flag would be, and nothing changes unless all of them are good.
     */
    public void put(RoutingContext rc) {
        try {
            JsonNode body = rc.body() == null || rc.body().buffer() == null ? null : JsonReplies.MAPPER.readTree(rc.body().buffer().getBytes());
            if (body == null || !body.isObject() || !body.hasNonNull("policy")) {
                throw new IllegalArgumentException("send a JSON object like {\"policy\":\"affinity\",\"spillThreshold\":\"auto\"}; "
                        + "policies: " + String.join(", ", PlacementSettings.POLICIES));
            }
            String name = PlacementSettings.POLICY.parse(body.get("policy").asText());
            SpillThreshold spill = body.hasNonNull("spillThreshold")
                    ? PlacementSettings.SPILL_THRESHOLD.parse(body.get("spillThreshold").asText())
                    : policy.current().spillThreshold();
            Optional<Boolean> admit = Optional.empty();
            if (body.has("admission")) {
                JsonNode a = body.get("admission");
                // A JSON boolean, not a word: JSON has the type that a flag's text ("on") spells out.
                if (!a.isBoolean()) {
                    throw new IllegalArgumentException(AdmissionSettings.ADMISSION.key() + " must be true or false, got " + a);
                }
                admit = Optional.of(AdmissionSettings.ADMISSION.check(a.asBoolean()));
            }
            admit.ifPresent(admission::setEnabled);
            policy.switchTo(name, spill);
            JsonReplies.send(rc, 200, view());
        } catch (IOException e) {
            JsonReplies.error(rc, 400, "body is not valid JSON: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            JsonReplies.error(rc, 400, e.getMessage());
        }
    }
}
