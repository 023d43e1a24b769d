package io.lmwarden.router.session;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A conversation's identity as far as placement is concerned, and where it was found. A value longer
 * than {@link #MAX_RAW_CHARS} is kept as its SHA-256 only: a client-sent key of any size (an 8 MiB
 * {@code user} field) must not be stored whole in the affinity table and the session log.
 */
public record SessionKey(String value, SessionKeySource source) {

    /** Longer than any session id a client sends (a UUID is 36, Claude Code's JSON user id about 120). */
    public static final int MAX_RAW_CHARS = 256;

    public SessionKey {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("session key must not be empty");
        }
        if (value.length() > MAX_RAW_CHARS) {
            value = "sha256:" + sha256(value);
        }
    }

    /** The same key in a tenant's own namespace: tenants never share an affinity entry or a session log. */
    public SessionKey inTenant(String tenant) {
        return tenant.isEmpty() ? this : new SessionKey(tenant + "/" + value, source);
    }

    /** Keys the router made itself (lineages, fingerprints): no client data, shown as they are. */
    public static boolean routerMade(String value) {
        return value.startsWith("ln-") || value.startsWith("fp-");
    }

    /** What anyone but an admin sees of a key: itself when the router made it, else its digest. */
    public static String shown(String value) {
        return routerMade(value) ? value : displayHash(value);
    }

    /** A short stable digest to show instead of the raw key, which may be personal data (an e-mail in {@code user}). */
    public static String displayHash(String value) {
        // Only the first 8 bytes are shown: formatting all 32 to cut 48 characters off would cost as much as the digest.
        return "h-" + HexFormat.of().formatHex(sha256Bytes(value), 0, 8);
    }

    static String sha256(String s) {
        return HexFormat.of().formatHex(sha256Bytes(s));
    }

    private static byte[] sha256Bytes(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
