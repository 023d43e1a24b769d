package io.lmwarden.operator.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository outside this module that the operator's build keeps in step. */
final class RepositoryFiles {
    static final String UPDATE_PROPERTY = "lmw.crd.update";
    static final String CRD_FILE = "modeldeployments.lmwarden.io-v1.yml";

    private RepositoryFiles() {
    }

    static Path root() {
        return Path.of(System.getProperty("lmw.repo.root", "..")).toAbsolutePath().normalize();
    }

    static Path generatedCrd() {
        return Path.of(System.getProperty("lmw.generated.crds", "target/generated-crds"), CRD_FILE);
    }

    /** The CRD as checked in: the generated one with {@link CrdConventions} applied. */
    static String crd() {
        return CrdConventions.apply(read(generatedCrd()));
    }

    static Path chart() {
        return root().resolve("helm/lm-warden");
    }

    static boolean updateRequested() {
        return Boolean.parseBoolean(System.getProperty(UPDATE_PROPERTY, "false"));
    }

    static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

    static void write(Path path, String content) {
        try {
            Files.createDirectories(path.getParent());
            Files.writeString(path, content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }

    static String howToRefresh() {
        return "refresh the checked-in copies with: mvn -B -pl operator verify -D" + UPDATE_PROPERTY + "=true";
    }
}
