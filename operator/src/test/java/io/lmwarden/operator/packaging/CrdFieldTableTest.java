package io.lmwarden.operator.packaging;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * operator/README.md's ModelDeployment reference is the table {@link CrdFieldTable} makes from the CRD, so a field, default,
 * check or description changed in the model classes changes the README with it. {@code -Dlmw.crd.update=true} (which also
 * rewrites the CRD copies) writes the new table into the README.
 */
class CrdFieldTableTest {
    private static final Path README = RepositoryFiles.root().resolve("operator").resolve("README.md");

    @Test
    void theReadmesReferenceTableIsTheCrds() {
        String readme = RepositoryFiles.read(README);
        int from = readme.indexOf(CrdFieldTable.BEGIN);
        int to = readme.indexOf(CrdFieldTable.END);
        assertThat(from).as("operator/README.md has the field table's markers").isGreaterThanOrEqualTo(0);
        assertThat(to).isGreaterThan(from);
        String expected = CrdFieldTable.BEGIN + "\n" + CrdFieldTable.markdown(RepositoryFiles.crd()) + CrdFieldTable.END;
        String actual = readme.substring(from, to + CrdFieldTable.END.length());
        if (!actual.equals(expected) && RepositoryFiles.updateRequested()) {
            RepositoryFiles.write(README, readme.substring(0, from) + expected + readme.substring(to + CrdFieldTable.END.length()));
            actual = expected;
        }
        assertThat(actual).as("operator/README.md's field table differs from the CRD; " + RepositoryFiles.howToRefresh()).isEqualTo(expected);
    }

    @Test
    void everyFieldOfTheModelClassesIsARowAndKubernetesTypesAreOne() {
        String table = CrdFieldTable.markdown(RepositoryFiles.crd());
        assertThat(table).contains("| `model` | string | — | required; pattern ", "| `router.admission.kvBudget` | number | — | > 0; ≤ 4 |",
                "| `lora.adapters[].volume.claimName` | string | — | required; ", "| `lora.maxLoraRank` | integer | `16` | one of `1`, `8`, ",
                "| `lora.adapters` | list of object | — | unique `name`; each item exactly one of `huggingFace`, `volume` |",
                "| `router.spillThreshold` | integer or string | `auto` | spillThreshold must be 'auto' or an integer >= 1 |",
                "| `nodeSelector` | map of string | — |", "| `env` | list of object | — |");
        assertThat(table).as("a Kubernetes type is one row").doesNotContain("`env[].name`", "`resources.limits`", "`tolerations[].key`");
    }
}
