package io.lmwarden.router.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The router's settings, resolved ({@link ConfigResolver}) and built into one record per area
 * ({@link SettingsTable#AREAS}), each checked once by its settings. Immutable; {@link #with} makes a
 * changed copy, checked again: {@code config.with(AdmissionSettings.KV_BUDGET, 0.5)}.
 */
public final class RouterConfig {

    private final SettingValues values;
    private final Map<Class<?>, Record> areas = new HashMap<>();

    private RouterConfig(SettingValues values) {
        this.values = values;
        for (Area<?> a : SettingsTable.AREAS) {
            areas.put(a.type(), a.build(values));
        }
    }

    public static RouterConfig of(SettingValues values) {
        return new RouterConfig(values);
    }

    /** All defaults: no replica source yet. */
    public static RouterConfig defaults() {
        return of(SettingValues.defaults());
    }

    /** Defaults routing to the given replica URLs on a free port: what tests and the bench start. */
    public static RouterConfig forReplicas(List<String> urls) {
        return defaults().with(ServerSettings.PORT, 0).with(DiscoverySettings.REPLICAS, urls);
    }

    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** A copy with one setting changed; the value is checked as one from a flag would be. */
    public <T> RouterConfig with(Setting<T> setting, T value) {
        return new RouterConfig(values.with(setting, value));
    }

    /** A copy with a whole area replaced, e.g. a {@link ClusterSettings} built for a test. */
    @SuppressWarnings("unchecked")
    public <R extends Record> RouterConfig with(R area) {
        Area<R> a = (Area<R>) SettingsTable.AREAS.stream().filter(x -> x.type() == area.getClass()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(area.getClass().getSimpleName() + " is not a settings area"));
        return new RouterConfig(values.withAll(a.valuesOf(area)));
    }

    public ServerSettings server() {
        return area(ServerSettings.class);
    }

    public DiscoverySettings discovery() {
        return area(DiscoverySettings.class);
    }

    public UpstreamSettings upstream() {
        return area(UpstreamSettings.class);
    }

    public PlacementSettings placement() {
        return area(PlacementSettings.class);
    }

    public AdmissionSettings admission() {
        return area(AdmissionSettings.class);
    }

    public ClusterSettings cluster() {
        return area(ClusterSettings.class);
    }

    public TenantSettings tenants() {
        return area(TenantSettings.class);
    }

    public LogSettings logging() {
        return area(LogSettings.class);
    }

    public SimulationSettings simulation() {
        return area(SimulationSettings.class);
    }

    public CacheViewSettings kvEvents() {
        return area(CacheViewSettings.class);
    }

    // Shorthands for the overrides every embedding of the router (tests, the bench) makes.

    public RouterConfig withPort(int port) {
        return with(ServerSettings.PORT, port);
    }

    public RouterConfig withReplicas(List<String> urls) {
        return with(DiscoverySettings.REPLICAS, urls);
    }

    public RouterConfig withTimeScale(double timeScale) {
        return with(SimulationSettings.TIME_SCALE, timeScale);
    }

    public RouterConfig withScrapeInterval(Duration interval) {
        return with(DiscoverySettings.SCRAPE_INTERVAL, interval);
    }

    public RouterConfig withPrefillMsPerToken(double ms) {
        return with(PlacementSettings.PREFILL_MS_PER_TOKEN, ms);
    }

    public RouterConfig withSpillThreshold(SpillThreshold threshold) {
        return with(PlacementSettings.SPILL_THRESHOLD, threshold);
    }

    private <R extends Record> R area(Class<R> type) {
        return type.cast(areas.get(type));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RouterConfig c && c.areas.equals(areas);
    }

    @Override
    public int hashCode() {
        return areas.hashCode();
    }

    /** The areas' names only: the values include the admin token and the tenant secret. */
    @Override
    public String toString() {
        return "RouterConfig" + SettingsTable.AREAS.stream().map(Area::name).toList();
    }
}
