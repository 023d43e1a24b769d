package io.lmwarden.router.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table of every router setting: the areas in the order the README lists them, each with the
 * settings it declares. Flags ({@code RouterMain}), environment variables, the YAML file
 * ({@link ConfigResolver}), {@code PUT /api/policy} and router/README.md's table
 * ({@code DocumentationTest}) are all made from it.
 *
 * <p>To add a setting: declare it as a constant of its area's record and add the record component
 * that holds it (see {@link Area}); then run {@code DocumentationTest} with {@code -Dlmw.writeReadme=true}
 * to rewrite the README's table. A new area is one more line in {@link #AREAS} and an accessor in
 * {@link RouterConfig}.
 */
public final class SettingsTable {

    private SettingsTable() {
    }

    public static final List<Area<?>> AREAS = List.of(
            Area.of("server", ServerSettings.class),
            Area.of("discovery", DiscoverySettings.class),
            Area.of("upstream", UpstreamSettings.class),
            Area.of("placement", PlacementSettings.class),
            Area.of("admission", AdmissionSettings.class),
            Area.of("cluster", ClusterSettings.class),
            Area.of("tenants", TenantSettings.class),
            Area.of("logging", LogSettings.class),
            Area.of("simulation", SimulationSettings.class),
            Area.of("kvEvents", CacheViewSettings.class));

    /** Read before everything else (it names the file the rest may come from), so it belongs to no area. */
    public static final Setting<String> CONFIG = Setting.text("config", "", "YAML config file with any of these keys");

    /** Every setting: the areas' in order, then {@link #CONFIG}. */
    public static final List<Setting<?>> ALL = all();

    private static List<Setting<?>> all() {
        List<Setting<?>> out = new ArrayList<>();
        AREAS.forEach(a -> out.addAll(a.settings()));
        out.add(CONFIG);
        return List.copyOf(out);
    }

    public static Optional<Setting<?>> byKey(String key) {
        return ALL.stream().filter(s -> s.key().equals(key)).findFirst();
    }
}
