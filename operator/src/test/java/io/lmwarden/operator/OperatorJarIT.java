package io.lmwarden.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded jar the operator image runs, started as its own process against fabric8's CRUD mock API
 * server through a kubeconfig: catches packaging faults (missing classes, service files, HTTP client
 * implementation) that in-process tests cannot see.
 */
@Tag("processes")
@EnableKubernetesMockClient(crud = true)
class OperatorJarIT {
    private static final Pattern HTTP_PORT = Pattern.compile("http=127\\.0\\.0\\.1:(\\d+)");
    KubernetesClient client;

    @Test
    void shadedJarStartsReconcilesAndServesHealth() throws Exception {
        try (InputStream crd = new FileInputStream(Path.of(System.getProperty("lmw.generated.crds"),
                "modeldeployments.lmwarden.io-v1.yml").toFile())) {
            client.resource(client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class)).create();
        }
        Path kubeconfig = Files.createTempFile("lmw-kubeconfig", ".yaml");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: test
                  user:
                    token: test-token
                contexts:
                - name: mock
                  context: {cluster: mock, user: test, namespace: default}
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl()));

        ProcessBuilder builder = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", System.getProperty("lmw.operator.jar"),
                "--leader-election", "false", "--http-host", "127.0.0.1", "--http-port", "0",
                "--router-image", "example.org/router:jar-it"))
                .redirectErrorStream(true);
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        builder.environment().remove("LMW_ROUTER_IMAGE");
        Process process = builder.start();
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.append(line).append('\n');
                }
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        }, "operator-jar-output");
        reader.setDaemon(true);
        reader.start();
        try {
            int port = awaitPort(output, process);
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + port;
            await(() -> status(http, base + "/readyz") == 200, output);

            client.resource(SampleModelDeployments.simulated("demo", 3)).create();
            await(() -> client.apps().statefulSets().inNamespace("demo").withName("sim-vllm").get() != null, output);
            assertThat(client.apps().statefulSets().inNamespace("demo").withName("sim-vllm").get().getSpec().getReplicas()).isEqualTo(3);
            assertThat(client.apps().deployments().inNamespace("demo").withName("sim-router").get()
                    .getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("example.org/router:jar-it");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("operator_sdk_");
        } finally {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Files.deleteIfExists(kubeconfig);
        }
    }

    private static int status(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static int awaitPort(StringBuffer output, Process process) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = HTTP_PORT.matcher(output);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive()) {
                throw new AssertionError("operator exited with " + process.exitValue() + ":\n" + output);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("operator did not report its HTTP port within 60 s:\n" + output);
    }

    private interface Check {
        boolean holds();
    }

    private static void await(Check check, StringBuffer output) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("condition not met within 30 s; operator output:\n" + output);
    }
}
