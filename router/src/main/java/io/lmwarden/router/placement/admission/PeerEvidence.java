package io.lmwarden.router.placement.admission;

import java.util.List;

/**
 * The other routers' engagement evidence ({@link AdmissionEvidence}), as of their last load reports: read under the
 * admission controller's lock from this member's memory. A router alone has none.
 */
public interface PeerEvidence {

    List<AdmissionEvidence> reports();

    PeerEvidence NONE = List::of;
}
