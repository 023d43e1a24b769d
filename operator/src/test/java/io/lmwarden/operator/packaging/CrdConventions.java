package io.lmwarden.operator.packaging;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lmwarden.operator.model.LoraSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What fabric8's CRD generator cannot express with annotations, applied to its output before the CRD
 * is checked in: the printer columns in the order {@code kubectl get md} shows them (the generator
 * sorts them by JSON path), conditions shaped like Kubernetes' {@code metav1.Condition} (a list-map
 * keyed by type, required fields, an enum status, a date-time), {@code spec.env[].name} required
 * as in a Pod's env, and LoRA adapters as vLLM takes them: a list-map keyed by name (the API server refuses a repeated
 * name), exactly one source each, and {@code maxLoraRank} one of vLLM's ranks.
 */
final class CrdConventions {

    /** NAME comes first by itself; then these, then any column with priority > 0 (shown by -o wide). */
    static final List<String> COLUMN_ORDER = List.of("Model", "DP", "TP", "Ready", "Endpoint", "Age");

    private CrdConventions() {
    }

    static String apply(String generatedYaml) {
        KubernetesSerialization serialization = new KubernetesSerialization();
        CustomResourceDefinition crd = serialization.unmarshal(generatedYaml, CustomResourceDefinition.class);
        for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
            List<CustomResourceColumnDefinition> columns = new ArrayList<>(v.getAdditionalPrinterColumns());
            columns.sort(Comparator.comparingInt(CrdConventions::rank));
            v.setAdditionalPrinterColumns(columns);
            JSONSchemaProps root = v.getSchema().getOpenAPIV3Schema();
            conditions(root.getProperties().get("status").getProperties().get("conditions"));
            JSONSchemaProps envItem = root.getProperties().get("spec").getProperties().get("env").getItems().getSchema();
            envItem.setRequired(List.of("name"));
            envItem.getProperties().get("name").setMinLength(1L);
            lora(root.getProperties().get("spec").getProperties().get("lora"));
        }
        String header = generatedYaml.lines().takeWhile(l -> l.startsWith("#")).map(l -> l + "\n").reduce("", String::concat);
        return header + "# Then the conventions of operator/src/test/.../packaging/CrdConventions.java are applied.\n"
                + serialization.asYaml(crd).replaceFirst("^---\n", "");
    }

    private static int rank(CustomResourceColumnDefinition c) {
        int i = COLUMN_ORDER.indexOf(c.getName());
        return i >= 0 && (c.getPriority() == null || c.getPriority() == 0) ? i : COLUMN_ORDER.size() + (c.getPriority() == null ? 0 : c.getPriority());
    }

    private static void lora(JSONSchemaProps lora) {
        lora.getProperties().get("maxLoraRank").setEnum(LoraSpec.MAX_LORA_RANKS.stream()
                .map(r -> (com.fasterxml.jackson.databind.JsonNode) com.fasterxml.jackson.databind.node.IntNode.valueOf(r)).toList());
        JSONSchemaProps adapters = lora.getProperties().get("adapters");
        adapters.setXKubernetesListType("map");
        adapters.setXKubernetesListMapKeys(List.of("name"));
        // A structural schema may hold oneOf with nothing but required in it.
        adapters.getItems().getSchema().setOneOf(List.of(new JSONSchemaPropsBuilder().withRequired("huggingFace").build(),
                new JSONSchemaPropsBuilder().withRequired("volume").build()));
    }

    /** As apimachinery's metav1.Condition declares them. */
    private static void conditions(JSONSchemaProps list) {
        list.setXKubernetesListType("map");
        list.setXKubernetesListMapKeys(List.of("type"));
        JSONSchemaProps item = list.getItems().getSchema();
        item.setRequired(List.of("type", "status", "lastTransitionTime", "reason", "message"));
        var p = item.getProperties();
        p.put("type", new JSONSchemaPropsBuilder(p.get("type")).withMaxLength(316L)
                .withPattern("^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
                .withDescription("Type of condition in CamelCase: Ready, Progressing or Degraded.").build());
        p.put("status", new JSONSchemaPropsBuilder(p.get("status"))
                .withEnum(List.of(new com.fasterxml.jackson.databind.node.TextNode("True"),
                        new com.fasterxml.jackson.databind.node.TextNode("False"),
                        new com.fasterxml.jackson.databind.node.TextNode("Unknown")))
                .withDescription("Status of the condition: True, False or Unknown.").build());
        p.put("lastTransitionTime", new JSONSchemaPropsBuilder(p.get("lastTransitionTime")).withFormat("date-time")
                .withDescription("When the condition last changed from one status to another.").build());
        p.put("reason", new JSONSchemaPropsBuilder(p.get("reason")).withMinLength(1L).withMaxLength(1024L)
                .withPattern("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
                .withDescription("Programmatic identifier of the last transition's cause, in CamelCase.").build());
        p.put("message", new JSONSchemaPropsBuilder(p.get("message")).withMaxLength(32768L)
                .withDescription("Human-readable details of the transition; may be empty.").build());
        p.put("observedGeneration", new JSONSchemaPropsBuilder(p.get("observedGeneration")).withMinimum(0.0)
                .withDescription("metadata.generation the condition was set for.").build());
    }
}
