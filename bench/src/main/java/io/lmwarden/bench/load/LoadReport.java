package io.lmwarden.bench.load;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** What every load tool reports besides its figure: machine load, a process's open descriptors, readiness. */
final class LoadReport {

    private LoadReport() {
    }

    /** The machine's load averages, as {@code uptime} prints them (from /proc/loadavg). */
    static String uptime() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split("\\s+");
            return "load average " + f[0] + ", " + f[1] + ", " + f[2] + " (" + Runtime.getRuntime().availableProcessors() + " cores)";
        } catch (IOException e) {
            return "load average unknown (" + e.getMessage() + ")";
        }
    }

    /** Open file descriptors of a process on this machine (Linux /proc), or -1. */
    static int openFds(long pid) {
        String[] fds = new File("/proc/" + pid + "/fd").list();
        return fds == null ? -1 : fds.length;
    }

    /** Waits until the router's /readyz says that {@code replicas} replicas are ready. */
    static void awaitReady(String routerUrl, int replicas) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String last = "";
        for (int i = 0; i < 600; i++) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(routerUrl + "/readyz")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                last = r.statusCode() + " " + r.body();
                if (r.statusCode() == 200 && r.body().contains("\"readyReplicas\":" + replicas)) {
                    return;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("router not ready with " + replicas + " replicas within 60 s; last /readyz: " + last);
    }
}
