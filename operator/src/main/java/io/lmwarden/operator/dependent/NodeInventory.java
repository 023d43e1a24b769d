package io.lmwarden.operator.dependent;

import java.util.List;
import java.util.Optional;

/**
 * The cluster's nodes as the operator could read them for {@code kvOffload.sizeGiB: auto}, or why it could not
 * (RBAC forbids listing nodes, the API server failed): the sizing then falls back and says so.
 *
 * @param nodes      the nodes, when they could be read
 * @param unreadable why they could not, when they could not
 */
public record NodeInventory(Optional<List<NodeCapacity>> nodes, String unreadable) {
    /** Where the reconciler leaves the inventory for the StatefulSet's desired state in JOSDK's workflow context. */
    public static final String CONTEXT_KEY = "lmwarden.io/node-inventory";
    /** No node data: unit tests that call {@code desired(md)}, and ModelDeployments that do not ask for auto. */
    public static final NodeInventory NOT_READ = unreadable("the operator did not read the nodes");

    public NodeInventory {
        nodes = nodes.map(List::copyOf);
    }

    public static NodeInventory of(List<NodeCapacity> nodes) {
        return new NodeInventory(Optional.of(nodes), null);
    }

    public static NodeInventory unreadable(String why) {
        return new NodeInventory(Optional.empty(), why);
    }
}
