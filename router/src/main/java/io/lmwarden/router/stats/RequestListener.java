package io.lmwarden.router.stats;

import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.session.RequestFacts;

/** Told about every placed request and how it ended: the stats, session log and diagnostics hang off it. */
public interface RequestListener {

    void placed(RequestFacts facts, Placement placement);

    void ended(RequestFacts facts, Placement placement, ExchangeOutcome outcome);
}
