package io.lmwarden.operator.dependent;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/** A hash of an object as JSON with its keys in order, so that maps built in any order hash the same. */
final class DesiredHash {

    private DesiredHash() {
    }

    static String of(JsonNode object) {
        StringBuilder canonical = new StringBuilder();
        write(object, canonical);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static void write(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            Map<String, JsonNode> sorted = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                sorted.put(field.getKey(), field.getValue());
            }
            out.append('{');
            sorted.forEach((key, value) -> {
                out.append(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsString(key)).append(':');
                write(value, out);
                out.append(',');
            });
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            node.forEach(element -> {
                write(element, out);
                out.append(',');
            });
            out.append(']');
        } else {
            out.append(node.toString());
        }
    }
}
