package io.lmwarden.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The operator process as main() wires it: options, leader election on a Lease, health and metrics, reconciling. */
@EnableKubernetesMockClient(crud = true)
class OperatorProcessTest {
    KubernetesClient client;
    KubernetesMockServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void electsItselfLeaderServesHealthAndMetricsAndReconciles() throws Exception {
        try (InputStream crd = new FileInputStream(Path.of(System.getProperty("lmw.generated.crds", "target/generated-crds"),
                "modeldeployments.lmwarden.io-v1.yml").toFile())) {
            client.resource(client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class)).create();
        }
        // The mock API server has no authorizer; answer JOSDK's start-up check of Lease permissions the
        // way a real API server does for the chart's leader-election Role.
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                .andReturn(201, new SelfSubjectRulesReviewBuilder()
                        .withNewMetadata().endMetadata()
                        .withNewSpec().withNamespace("lmw-system").endSpec()
                        .withNewStatus().withIncomplete(false)
                        .addNewResourceRule().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("get", "create", "update", "patch").endResourceRule()
                        .endStatus().build())
                .always();
        OperatorMain main = new OperatorMain();
        new CommandLine(main).parseArgs("--http-host", "127.0.0.1", "--http-port", "0",
                "--leader-election", "true", "--lease-namespace", "lmw-system", "--lease-duration", "10s",
                "--router-image", "example.org/router:7");

        try (OperatorMain.RunningOperator running = main.start(client)) {
            String base = "http://127.0.0.1:" + running.http().port();
            assertThat(get(base + "/healthz").statusCode()).isEqualTo(200);
            await(() -> get(base + "/readyz").statusCode() == 200);

            await(() -> client.leases().inNamespace("lmw-system").withName("lm-warden-operator").get() != null);
            Lease lease = client.leases().inNamespace("lmw-system").withName("lm-warden-operator").get();
            assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

            client.resource(SampleModelDeployments.simulated("demo", 2)).create();
            await(() -> client.apps().statefulSets().inNamespace("demo").withName("sim-vllm").get() != null);
            assertThat(client.apps().statefulSets().inNamespace("demo").withName("sim-vllm").get()
                    .getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("example.org/router:7");

            await(() -> get(base + "/metrics").body().contains("operator_sdk_reconciliations_started_total"));
            assertThat(get(base + "/metrics").body()).contains("jvm_memory_used_bytes");
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("condition not met within 20 s");
    }
}
