package io.lmwarden.operator.packaging;

import java.util.Map;

/** deploy/operator.yaml: a Namespace, the CRD and the chart rendered with its defaults, for `kubectl apply -f`. */
final class DeployManifest {
    static final String NAMESPACE = "lm-warden";

    private DeployManifest() {
    }

    static String render() {
        String crd = RepositoryFiles.crd();
        // Applied with kubectl, not installed by Helm: a managed-by: Helm label would make Helm and other
        // tools believe a release owns these objects.
        String chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of()).yaml()
                .replaceAll("(?m)^\\s*app\\.kubernetes\\.io/managed-by: Helm\\R", "");
        return """
                # LM Warden operator for `kubectl apply -f deploy/operator.yaml`: the ModelDeployment CRD,
                # the operator's RBAC and its Deployment in namespace lm-warden, watching all namespaces.
                # Generated from crds/ and helm/lm-warden (chart defaults) by the operator module's tests;
                # do not edit by hand: refresh with `mvn -B -pl operator verify -Dlmw.crd.update=true`.
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: lm-warden
                ---
                """ + crd + (chart.startsWith("---") ? "" : "---\n") + chart;
    }
}
