package io.lmwarden.bench.run;

import io.lmwarden.bench.pool.ServedModel;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.report.StageResult;

import java.util.List;

/** How one variant's load is driven and measured: closed-loop sessions in stages, or a trace replayed in windows. */
public interface LoadRun {

    /** Runs the load on an opened variant; one result per stage (or window). */
    List<StageResult> run(VariantTarget target, String policy, ServedModel model, int repeat, long runNonce);
}
