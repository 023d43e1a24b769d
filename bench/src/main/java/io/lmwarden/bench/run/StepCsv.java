package io.lmwarden.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every step of one variant, one line each, for runs whose pool changes (scheduled faults) or that ask for it
 * ({@code --step-log}): which router and replica
 * served it, the router's decision, whether it stayed, when it was sent and ended (workload seconds from the variant's
 * start) and how it failed. What the timeline's counts are made of, for looking at one session's moves.
 */
final class StepCsv {

    private StepCsv() {
    }

    static Path write(Path dir, String policy, int repeat, List<StepRecord> steps, long originNanos, TimeScale clock) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("steps-" + policy.replaceAll("[^A-Za-z0-9_.+-]", "_") + "-r" + repeat + ".csv");
        List<String> lines = new ArrayList<>();
        lines.add("session,step,router,sent_s,first_token_s,end_s,replica,decision,stayed,queue_wait_s,prompt_tokens,cached_tokens,"
                + "output_tokens,error");
        for (StepRecord r : steps) {
            lines.add(String.join(",", String.valueOf(r.session()), String.valueOf(r.step()), String.valueOf(r.router()),
                    seconds(r.sentNanos() - originNanos, clock), r.firstTokenNanos() == 0 ? "" : seconds(r.firstTokenNanos() - originNanos, clock),
                    seconds(r.endNanos() - originNanos, clock), r.replica() == null ? "" : r.replica(),
                    r.decision() == null ? "" : r.decision(), r.stayed() == null ? "" : r.stayed().toString(),
                    seconds(r.queueWaitNanos(), clock), String.valueOf(r.promptTokens()), String.valueOf(r.cachedTokens()),
                    String.valueOf(r.outputTokens()), r.error() == null ? "" : '"' + r.error().replace('"', '\'') + '"'));
        }
        Files.write(file, lines);
        return file;
    }

    private static String seconds(long nanos, TimeScale clock) {
        return String.format(Locale.ROOT, "%.2f", clock.workloadSeconds(nanos));
    }
}
