package io.lmwarden.common.build;

/**
 * The version a jar was built as: its manifest's {@code Implementation-Version} (the shade plugin
 * writes the Maven project version there). Classes run from a build directory have no manifest, so
 * they report {@value #UNPACKAGED}. Shared by the simulator, the router, the bench and the
 * operator.
 */
public final class BuildVersion {

    /** What a class outside a packaged jar reports. */
    public static final String UNPACKAGED = "dev";

    private BuildVersion() {
    }

    public static String of(Class<?> anyClassOfTheJar) {
        Package p = anyClassOfTheJar.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null || v.isBlank() ? UNPACKAGED : v;
    }
}
