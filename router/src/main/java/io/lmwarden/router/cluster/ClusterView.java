package io.lmwarden.router.cluster;

import java.util.List;

/**
 * The cluster as this router sees it.
 *
 * @param mode    {@code single} (one router, nothing shared) or {@code infinispan}
 * @param self    this router's member name
 * @param members every member, this one included
 * @param agree   every member reported, in the same view, and sees the same number of pins
 */
public record ClusterView(String mode, String self, String coordinator, List<Member> members, boolean agree) {

    /** One member and its last report; {@code reported} is false until its first one arrived. */
    public record Member(String name, boolean self, boolean reported, int pins, int inFlight, long viewId) {
    }

    public ClusterView {
        members = List.copyOf(members);
    }
}
