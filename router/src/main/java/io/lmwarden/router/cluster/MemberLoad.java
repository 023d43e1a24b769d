package io.lmwarden.router.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.lmwarden.router.placement.admission.AdmissionEvidence;
import io.lmwarden.router.placement.admission.PeerResident;

import java.util.List;
import java.util.Map;

/**
 * One router's own load as its peers see it: requests it has in flight per replica, the KV blocks
 * its resident sessions hold per replica (admission), and how many pins it sees (to tell whether
 * the members agree). Travels as JSON text, so the clustered caches hold only strings.
 *
 * @param viewId    the cluster view the router was in when it reported
 * @param residents its resident sessions, each with its working set's size and prefix checkpoints, so that
 *                  peers count a session resident through two routers, and a prefix two sessions share, once;
 *                  empty from a router that predates them (its {@code residentBlocks} then count as they are)
 * @param evidence  its admission's engagement evidence, which every member combines with its own; null from a router
 *                  that predates it (it then counts for nothing in the decision)
 */
public record MemberLoad(Map<String, Integer> inFlight, Map<String, Long> residentBlocks, int pins, long viewId,
                         List<PeerResident> residents, AdmissionEvidence evidence) {

    private static final ObjectMapper JSON = new ObjectMapper();

    @JsonCreator
    public MemberLoad {
        inFlight = inFlight == null ? Map.of() : Map.copyOf(inFlight);
        residentBlocks = residentBlocks == null ? Map.of() : Map.copyOf(residentBlocks);
        residents = residents == null ? List.of() : List.copyOf(residents);
    }

    /** A report without per-session residents. */
    public MemberLoad(Map<String, Integer> inFlight, Map<String, Long> residentBlocks, int pins, long viewId) {
        this(inFlight, residentBlocks, pins, viewId, List.of());
    }

    /** A report without admission evidence. */
    public MemberLoad(Map<String, Integer> inFlight, Map<String, Long> residentBlocks, int pins, long viewId, List<PeerResident> residents) {
        this(inFlight, residentBlocks, pins, viewId, residents, null);
    }

    public MemberLoad withViewId(long id) {
        return new MemberLoad(inFlight, residentBlocks, pins, id, residents, evidence);
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static MemberLoad fromJson(String json) {
        try {
            return JSON.readValue(json, MemberLoad.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unreadable load report from a peer: " + e.getOriginalMessage(), e);
        }
    }
}
