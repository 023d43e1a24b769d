package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.util.function.Consumer;

/**
 * The client of fabric8's mock API server, for the tests and the operator they start, with 60 s request and
 * connection timeouts instead of the client's 10 s. A fresh mock server in a cold JVM answers its first requests
 * only once its event loops have loaded and bound the Kubernetes model classes: on a loaded 2-core machine that
 * took longer than 10 s, and the CRD's creation or the operator's informers failed to start. A timeout here only
 * turns a hang into a failure; it bounds no speed. Use it with {@code https = false}: TLS adds nothing to what these
 * tests check, and at load 40 a handshake on the starved server outlasted its own 10 s handshake timeout, which
 * closed the connection under an informer's first list.
 */
public final class PatientMockClient implements Consumer<KubernetesClientBuilder> {
    private static final int TIMEOUT_MS = 60_000;

    @Override
    public void accept(KubernetesClientBuilder builder) {
        builder.editOrNewConfig().withRequestTimeout(TIMEOUT_MS).withConnectionTimeout(TIMEOUT_MS).endConfig();
    }
}
