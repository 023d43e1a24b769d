package io.lmwarden.router.pool;

import io.lmwarden.common.logging.LogFields;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * What the router says when a replica runs an engine older than a feature the router uses with it needs
 * ({@link EngineFeature}): the notices shown with the replica in {@code /api/replicas}, and one WARN line per replica,
 * feature and engine version, however often the replica is scraped or comes back with the same engine. A replica
 * whose version is unknown (no {@code /version}) gets none: the router cannot tell, and says so by showing "unknown".
 */
final class EngineVersionWarnings {

    private static final Logger LOG = Logger.getLogger(EngineVersionWarnings.class.getName());

    /** endpoint id, feature and version already logged. */
    private final Set<String> said = ConcurrentHashMap.newKeySet();

    /** The notices for the endpoint running {@code version} with {@code used}; logs those not said before. */
    List<String> check(String endpointId, EngineVersion version, Set<EngineFeature> used) {
        List<String> notices = new ArrayList<>();
        for (EngineFeature f : used) {
            if (version.atLeast(f.firstRelease())) {
                continue;
            }
            String notice = f.title() + " needs vLLM " + f.firstRelease() + " or newer; this replica runs " + version
                    + " (used for " + f.usedBy() + "; " + f.source() + ")";
            notices.add(notice);
            if (said.add(endpointId + '\u0000' + f + '\u0000' + version.text())) {
                LogFields.warn(LOG, "replica's engine is older than a feature the router uses needs; upgrade its vLLM image",
                        "endpoint", endpointId, "engineVersion", version.text(), "feature", f.title(),
                        "firstRelease", f.firstRelease().text(), "usedBy", f.usedBy(), "source", f.source());
            }
        }
        return List.copyOf(notices);
    }

    /** The features the router uses with an endpoint. */
    static Set<EngineFeature> used(boolean followsItsKvEvents, boolean asksTokenIds, boolean engineRanks, boolean hostTier) {
        Set<EngineFeature> used = EnumSet.noneOf(EngineFeature.class);
        if (followsItsKvEvents) {
            used.add(EngineFeature.KV_EVENTS);
        }
        if (asksTokenIds) {
            used.add(EngineFeature.RETURN_TOKEN_IDS);
        }
        if (engineRanks) {
            used.add(EngineFeature.DATA_PARALLEL_RANK_HEADER);
        }
        if (hostTier) {
            used.add(EngineFeature.HOST_TIER_METRICS);
        }
        return used;
    }
}
