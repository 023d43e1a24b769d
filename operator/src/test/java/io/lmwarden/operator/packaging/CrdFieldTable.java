package io.lmwarden.operator.packaging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * operator/README.md's ModelDeployment reference, generated from the CRD's {@code spec} schema: one row per field that has a
 * description (every field of the model classes), with its type, schema default, the checks the API server applies and the
 * description. A field whose schema is a Kubernetes type (env, resources, tolerations, NetworkPolicy peers: properties
 * without descriptions) is one row; the CRD's own order (by name) is kept.
 */
final class CrdFieldTable {
    static final String BEGIN = "<!-- crd-fields:start (generated from the CRD by CrdFieldTableTest; do not edit by hand) -->";
    static final String END = "<!-- crd-fields:end -->";

    private CrdFieldTable() {
    }

    static String markdown(String crdYaml) {
        JsonNode spec;
        try {
            spec = new ObjectMapper(new YAMLFactory()).readTree(crdYaml).at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder md = new StringBuilder("| field | type | default | checks | meaning |\n| --- | --- | --- | --- | --- |\n");
        rows(md, spec, "");
        List<String> rules = new ArrayList<>();
        spec.path("x-kubernetes-validations").forEach(v -> rules.add(v.path("message").asText()));
        if (!rules.isEmpty()) {
            md.append("\nChecked across fields (CEL rules of `spec`): ").append(String.join("; ", rules)).append(".\n");
        }
        return md.toString();
    }

    private static void rows(StringBuilder md, JsonNode object, String prefix) {
        List<String> required = texts(object.path("required"));
        object.path("properties").fields().forEachRemaining(e -> {
            JsonNode field = e.getValue();
            if (!field.has("description")) {
                return;
            }
            String path = prefix + e.getKey();
            md.append("| `").append(path).append("` | ").append(type(field)).append(" | ").append(defaultOf(field)).append(" | ")
                    .append(checks(field, required.contains(e.getKey()))).append(" | ").append(cell(field.path("description").asText()))
                    .append(" |\n");
            boolean list = "array".equals(field.path("type").asText());
            JsonNode inner = list ? field.path("items") : field;
            if (documented(inner)) {
                rows(md, inner, path + (list ? "[]." : "."));
            }
        });
    }

    /** Our own classes describe every field; a Kubernetes type's properties have no description. */
    private static boolean documented(JsonNode object) {
        return StreamSupport.stream(object.path("properties").spliterator(), false).anyMatch(p -> p.has("description"));
    }

    private static String type(JsonNode field) {
        if (field.path("x-kubernetes-int-or-string").asBoolean()) {
            return "integer or string";
        }
        String type = field.path("type").asText();
        if (type.equals("array")) {
            return "list of " + type(field.path("items"));
        }
        if (type.equals("object") && field.has("additionalProperties")) {
            return "map of " + type(field.path("additionalProperties"));
        }
        return type;
    }

    private static String defaultOf(JsonNode field) {
        return field.has("default") ? "`" + cell(field.path("default").asText()) + "`" : "—";
    }

    private static String checks(JsonNode field, boolean required) {
        List<String> checks = new ArrayList<>();
        if (required) {
            checks.add("required");
        }
        if (field.has("minimum")) {
            checks.add((field.path("exclusiveMinimum").asBoolean() ? "> " : "≥ ") + number(field.path("minimum")));
        }
        if (field.has("maximum")) {
            checks.add((field.path("exclusiveMaximum").asBoolean() ? "< " : "≤ ") + number(field.path("maximum")));
        }
        if (field.has("enum")) {
            checks.add("one of " + StreamSupport.stream(field.path("enum").spliterator(), false).map(v -> "`" + v.asText() + "`")
                    .collect(Collectors.joining(", ")));
        }
        if (field.has("pattern")) {
            checks.add("pattern `" + field.path("pattern").asText() + "`");
        }
        if ("map".equals(field.path("x-kubernetes-list-type").asText())) {
            checks.add("unique " + texts(field.path("x-kubernetes-list-map-keys")).stream().map(k -> "`" + k + "`")
                    .collect(Collectors.joining(", ")));
        }
        JsonNode oneOf = field.path("items").path("oneOf");
        if (oneOf.isArray() && !oneOf.isEmpty()) {
            checks.add("each item exactly one of " + StreamSupport.stream(oneOf.spliterator(), false)
                    .map(o -> "`" + String.join("`+`", texts(o.path("required"))) + "`").collect(Collectors.joining(", ")));
        }
        field.path("x-kubernetes-validations").forEach(v -> checks.add(v.path("message").asText()));
        return checks.isEmpty() ? "—" : cell(String.join("; ", checks));
    }

    private static String number(JsonNode n) {
        double d = n.asDouble();
        return d == Math.rint(d) ? Long.toString((long) d) : n.asText();
    }

    private static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    /** Text fit for one table cell: one line, pipes escaped, and {@code <name>} shown rather than taken for an HTML tag. */
    private static String cell(String text) {
        return text.replace("\n", " ").replace("|", "\\|").replace("<", "&lt;");
    }
}
