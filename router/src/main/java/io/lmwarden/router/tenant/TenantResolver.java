package io.lmwarden.router.tenant;

import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.Tenant;


import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Function;

/**
 * Names a request's tenant: the configured header when set and present, else (when enabled) its API
 * key ({@code Authorization: Bearer …} or {@code x-api-key}), seen only as a digest. The tenant's
 * {@code cache_salt} is an HMAC of its id under the router's secret, so no client can compute
 * another tenant's salt and share its cached blocks.
 */
public final class TenantResolver {

    private static final int MAX_HEADER_TENANT_CHARS = 128;

    private final Optional<String> header;
    private final boolean fromApiKey;
    private final SecretKeySpec secret;

    public TenantResolver(Optional<String> header, boolean fromApiKey, Optional<String> secret) {
        this.header = header;
        this.fromApiKey = fromApiKey;
        byte[] key = secret.map(s -> s.getBytes(StandardCharsets.UTF_8)).orElseGet(TenantResolver::randomKey);
        this.secret = new SecretKeySpec(key, "HmacSHA256");
    }

    /** @param headers case-insensitive header lookup, null when absent */
    public Tenant resolve(Function<String, String> headers) {
        if (header.isPresent()) {
            String v = headers.apply(header.get());
            if (v != null && !v.isBlank()) {
                String id = v.trim();
                return of(id.length() > MAX_HEADER_TENANT_CHARS ? SessionKey.displayHash(id) : id);
            }
        }
        if (fromApiKey) {
            String key = apiKey(headers);
            if (key != null) {
                return of("key-" + SessionKey.displayHash(key).substring(2));
            }
        }
        return Tenant.NONE;
    }

    private Tenant of(String id) {
        return new Tenant(id, salt(id));
    }

    private static String apiKey(Function<String, String> headers) {
        String auth = headers.apply("authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) && auth.length() > 7 && !auth.substring(7).isBlank()) {
            return auth.substring(7).trim();
        }
        String x = headers.apply("x-api-key");
        return x == null || x.isBlank() ? null : x.trim();
    }

    private String salt(String id) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(id.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }

    private static byte[] randomKey() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
