package io.lmwarden.router.session;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What a request body offers to identify its conversation, as read: the candidate fields (null when
 * absent), and for a request without any of them, the prompt hashes lineage keys are made of.
 *
 * @param fixedStartHash hash of the conversation's fixed start (system, tools, first user turn), the fallback fingerprint;
 *                       both hashes are computed only when asked for (each is a pass over the prompt)
 * @param turnHashes     hashes of the canonical prompt through each message; empty for a plain {@code prompt}
 */
public record SessionKeyFields(String metadataUserId, String promptCacheKey, String conversation, String user,
                               LongSupplier fixedStartHash, Supplier<long[]> turnHashes) {
}
