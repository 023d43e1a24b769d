package io.lmwarden.bench.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The router's {@code GET /api/replicas} as it stood at the end of a variant, written to {@code --out} as
 * {@code replicas-POLICY-rREPEAT.json}: what the router concluded from the run (its capacity and host-tier advice, the
 * replicas' counters), read before a simulated pool is closed under it.
 */
final class RouterStateFile {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private RouterStateFile() {
    }

    /** Writes the file and returns its path; the router's answer or the failure to get one is the caller's to report. */
    static Path write(Path out, String routerUrl, String adminToken, String policy, int repeat) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).timeout(TIMEOUT).GET();
        if (adminToken != null) {
            request.header("Authorization", "Bearer " + adminToken);
        }
        HttpResponse<String> reply = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()
                .send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (reply.statusCode() != 200) {
            throw new IOException("GET " + routerUrl + "/api/replicas answered HTTP " + reply.statusCode());
        }
        Files.createDirectories(out);
        Path file = out.resolve("replicas-" + policy.replaceAll("[^A-Za-z0-9@+*_.-]", "_") + "-r" + repeat + ".json");
        Files.writeString(file, reply.body());
        return file;
    }
}
