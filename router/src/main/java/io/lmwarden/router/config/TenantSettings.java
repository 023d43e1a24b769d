package io.lmwarden.router.config;

import java.util.Optional;

/** How a request's tenant is named, and the secret its {@code cache_salt} is derived from. */
public record TenantSettings(
        @Key("tenantHeader") Optional<String> header,
        @Key("tenantFromApiKey") boolean fromApiKey,
        @Key("tenantSecret") Optional<String> secret) {

    public static final Setting<Optional<String>> TENANT_HEADER = Setting.optionalText("tenantHeader",
            "request header naming the tenant (e.g. X-Tenant-Id); without it the API key names the tenant");
    public static final Setting<Boolean> TENANT_FROM_API_KEY = Setting.bool("tenantFromApiKey", true,
            "a request's API key (Authorization: Bearer, x-api-key) identifies its tenant when tenantHeader is absent");
    public static final Setting<Optional<String>> TENANT_SECRET = Setting.optionalText("tenantSecret",
            "secret the per-tenant cache_salt is derived from (HMAC-SHA256); default: clustered routers share one the first member "
                    + "generated, a router alone makes up its own at start");

    /** Without the {@code secret}, which must never reach a log. */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[secret " + (secret.isPresent() ? "set" : "not set") + ", …]";
    }
}
