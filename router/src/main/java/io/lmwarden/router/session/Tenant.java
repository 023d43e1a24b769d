package io.lmwarden.router.session;

/**
 * Who a request belongs to, for cache isolation.
 *
 * @param id        the tenant's name in affinity keys and logs ({@code ""}: no tenant); an API key appears only as a digest
 * @param cacheSalt the {@code cache_salt} the router sets on the tenant's requests, unguessable by other tenants;
 *                  empty for requests without a tenant, whose own {@code cache_salt} is passed through
 */
public record Tenant(String id, String cacheSalt) {

    public static final Tenant NONE = new Tenant("", "");

    public boolean present() {
        return !id.isEmpty();
    }
}
