package io.lmwarden.operator.packaging;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The chart rendered by real Helm code (helm-java's bundled native Helm library). */
public record RenderedChart(String yaml, List<HasMetadata> objects) {

    public static RenderedChart render(String release, String namespace, Map<String, Object> values) {
        return render(release, namespace, values, null);
    }

    /** Lists and maps go in a values file: helm-java's set() passes scalars only. */
    public static RenderedChart render(String release, String namespace, Map<String, Object> values, java.nio.file.Path valuesFile) {
        TemplateCommand template = new Helm(RepositoryFiles.chart()).template().withName(release).withNamespace(namespace);
        if (valuesFile != null) {
            template.withValuesFile(valuesFile);
        }
        values.forEach(template::set);
        String yaml = template.call();
        KubernetesSerialization serialization = new KubernetesSerialization();
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : yaml.split("(?m)^---\\s*$")) {
            if (document.lines().anyMatch(line -> line.startsWith("kind:"))) {
                objects.add(serialization.unmarshal(document));
            }
        }
        return new RenderedChart(yaml, List.copyOf(objects));
    }

    public <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public <T extends HasMetadata> T one(Class<T> type) {
        List<T> found = all(type);
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " in the rendered chart, found " + found.size());
        }
        return found.get(0);
    }

    public <T extends HasMetadata> Optional<T> named(Class<T> type, String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
    }
}
