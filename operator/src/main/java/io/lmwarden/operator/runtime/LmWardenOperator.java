package io.lmwarden.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.lmwarden.operator.reconciler.ModelDeploymentReconciler;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;

/**
 * Builds the JOSDK {@link Operator} exactly as it ships; tests use this same factory against the
 * mock API server, so the write path they exercise is the production one.
 *
 * <p>Server-side apply is switched off both for dependents and for the status patch: dependents are
 * created with POST and updated with PUT of the full object after JOSDK's matcher found a difference,
 * and the status is written with a JSON patch on the status subresource. See README.md ("Why not
 * server-side apply") for the trade-off.
 */
public final class LmWardenOperator {

    private LmWardenOperator() {
    }

    /** An operator that does not react to leadership changes (tests, or leader election off). */
    public static Operator create(KubernetesClient client, OperatorSettings settings, MeterRegistry registry) {
        return create(client, settings, registry, new LeaderCallbacks(() -> { }, () -> { }, leader -> { }));
    }

    /**
     * @param leadership called when this process starts and stops leading. JOSDK cannot lead again in
     *                   the same process after losing the Lease, so the caller exits then and lets
     *                   Kubernetes restart the pod as a standby; JOSDK's own exit-on-stop-leading is off
     *                   because it would also fire during a normal shutdown.
     */
    public static Operator create(KubernetesClient client, OperatorSettings settings, MeterRegistry registry,
                                  LeaderCallbacks leadership) {
        Operator operator = new Operator(overrider -> {
            overrider.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    // Reading CustomResourceDefinitions needs a ClusterRole; with watchNamespaces the chart grants
                    // only namespaced Roles. A missing CRD shows up anyway: the informer's list fails with 404.
                    .checkingCRDAndValidateLocalModel(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withDependentResourceFactory(new DefaultsAwareDependentResourceFactory(settings.defaults()))
                    .withMetrics(MicrometerMetrics.newMicrometerMetricsBuilder(registry).notCollectingMetricsPerResource().build())
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(10));
            settings.leaderElection().ifPresent(le -> {
                var builder = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(le.leaseName())
                        .withIdentity(le.identity())
                        .withLeaseDuration(le.leaseDuration())
                        .withRenewDeadline(le.leaseDuration().multipliedBy(2).dividedBy(3))
                        .withRetryPeriod(le.leaseDuration().dividedBy(5))
                        .withExitOnStopLeading(false)
                        .withLeaderCallbacks(leadership);
                le.leaseNamespace().ifPresent(builder::withLeaseNamespace);
                overrider.withLeaderElectionConfiguration(builder.build());
            });
        });
        operator.register(new ModelDeploymentReconciler(settings.defaults(), settings.allowedImages()), config -> {
            if (settings.namespaces().isEmpty()) {
                config.watchingAllNamespaces();
            } else {
                config.settingNamespaces(settings.namespaces());
            }
        });
        return operator;
    }
}
