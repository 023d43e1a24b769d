package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentStatus;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Kubernetes Events on a ModelDeployment ({@code kubectl describe md}): one for every condition that
 * changed status or reason, and a Warning for an invalid spec or a failed reconciliation. An event the
 * API server refuses is logged and otherwise ignored: reporting must never stop reconciling.
 */
final class ModelDeploymentEvents {

    static final String COMPONENT = "lm-warden-operator";
    static final String NORMAL = "Normal";
    static final String WARNING = "Warning";
    /** The API server's limit on an event message. */
    private static final int MAX_MESSAGE = 1024;
    private static final Logger LOG = Logger.getLogger(ModelDeploymentEvents.class.getName());

    /** One event to record: type Normal or Warning, a CamelCase reason, a message. */
    record Note(String type, String reason, String message) {
    }

    private ModelDeploymentEvents() {
    }

    /** What changed between two statuses: each condition that is new or changed status or reason. */
    static List<Note> transitions(ModelDeploymentStatus before, ModelDeploymentStatus after) {
        List<Note> notes = new ArrayList<>();
        for (Condition c : after.getConditions()) {
            Optional<Condition> was = before == null || before.getConditions() == null ? Optional.empty()
                    : before.getConditions().stream().filter(p -> p.getType().equals(c.getType())).findFirst();
            boolean changed = was.map(p -> !Objects.equals(p.getStatus(), c.getStatus()) || !Objects.equals(p.getReason(), c.getReason()))
                    .orElse(true);
            // A condition that is born False with nothing to say (Degraded=False AsExpected) is no news.
            boolean news = was.isPresent() || !"False".equals(c.getStatus()) || StatusCalculator.READY.equals(c.getType());
            if (changed && news) {
                boolean bad = StatusCalculator.DEGRADED.equals(c.getType()) && "True".equals(c.getStatus());
                Note note = new Note(bad ? WARNING : NORMAL, c.getReason(),
                        c.getType() + "=" + c.getStatus() + (c.getMessage() == null || c.getMessage().isEmpty() ? "" : ": " + c.getMessage()));
                // One event per reason (an invalid spec sets it on all three conditions): the Warning wins.
                notes.removeIf(n -> n.reason().equals(note.reason()) && bad);
                if (notes.stream().noneMatch(n -> n.reason().equals(note.reason()))) {
                    notes.add(note);
                }
            }
        }
        return notes;
    }

    static void record(KubernetesClient client, ModelDeployment md, List<Note> notes, Instant now) {
        notes.forEach(n -> record(client, md, n, now));
    }

    static void record(KubernetesClient client, ModelDeployment md, Note note, Instant now) {
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        String message = note.message().length() > MAX_MESSAGE ? note.message().substring(0, MAX_MESSAGE) : note.message();
        Event event = new EventBuilder()
                .withNewMetadata().withGenerateName(md.getMetadata().getName() + ".").withNamespace(md.getMetadata().getNamespace()).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(md.getApiVersion()).withKind(md.getKind())
                        .withName(md.getMetadata().getName()).withNamespace(md.getMetadata().getNamespace())
                        .withUid(md.getMetadata().getUid()).withResourceVersion(md.getMetadata().getResourceVersion()).build())
                .withType(note.type()).withReason(note.reason()).withMessage(message)
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT)
                .withFirstTimestamp(time).withLastTimestamp(time).withCount(1)
                .build();
        try {
            client.v1().events().inNamespace(md.getMetadata().getNamespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            LOG.warning(() -> "cannot record event " + note.reason() + " on ModelDeployment " + md.getMetadata().getNamespace()
                    + "/" + md.getMetadata().getName() + ": " + e.getMessage());
        }
    }
}
