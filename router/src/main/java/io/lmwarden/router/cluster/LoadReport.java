package io.lmwarden.router.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Map;

/**
 * One router's own load as its peers see it: requests it has in flight per replica, the KV blocks
 * its resident sessions hold per replica (admission), and how many pins it sees (to tell whether
 * the members agree). Travels as JSON text, so the clustered caches hold only strings.
 *
 * @param viewId the cluster view the router was in when it reported
 */
public record LoadReport(Map<String, Integer> inFlight, Map<String, Long> residentBlocks, int pins, long viewId) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public LoadReport {
        inFlight = Map.copyOf(inFlight);
        residentBlocks = Map.copyOf(residentBlocks);
    }

    public LoadReport withViewId(long id) {
        return new LoadReport(inFlight, residentBlocks, pins, id);
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static LoadReport fromJson(String json) {
        try {
            return JSON.readValue(json, LoadReport.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unreadable load report from a peer: " + e.getOriginalMessage(), e);
        }
    }
}
