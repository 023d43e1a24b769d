package io.lmwarden.router.session;

/**
 * What a request body offers to identify its conversation, as read: the candidate fields (null when
 * absent), and for a request without any of them, the prompt hashes lineage keys are made of.
 *
 * @param fixedStartHash hash of the conversation's fixed start (system, tools, first user turn), the fallback fingerprint
 * @param turnHashes     hashes of the canonical prompt through each message; empty for a plain {@code prompt}
 */
public record SessionKeyFields(String metadataUserId, String promptCacheKey, String conversation, String user,
                               long fixedStartHash, long[] turnHashes) {
}
