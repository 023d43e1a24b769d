package io.lmwarden.bench.workload;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What a class's sessions send, per call, on a model of a given window: its sessions played through the same
 * {@link SessionContext} the driver uses (filler replies of the lengths they ask for, compactions included), without a
 * pool. The distributions come out as the tables of issue 23 measure them: over calls, prompt tokens, growth (how much a
 * prompt extends the previous call's; resets such as compaction are counted apart), output tokens and pauses; over
 * sessions, calls and compactions.
 *
 * @param prompt      prompt tokens per call (template tokens estimated)
 * @param growth      per call that extends the previous one: prompt − previous prompt
 * @param output      {@code max_tokens} per call (the reply's length with the simulator's fixed lengths)
 * @param pauseSeconds pause after each call that is followed by another
 * @param calls       calls per session
 * @param compactionsPerSession compactions per session, sorted
 * @param resetShare  share of calls whose prompt does not extend the previous one (after a compaction)
 */
public record WorkloadStats(double[] prompt, double[] growth, double[] output, double[] pauseSeconds, double[] calls,
                            double[] compactionsPerSession, double resetShare) {

    /** Plays {@code sessions} fresh sessions of {@code cls} on a window of {@code window} tokens. */
    public static WorkloadStats of(SessionClass cls, int sessions, int window) {
        DoubleList prompt = new DoubleList();
        DoubleList growth = new DoubleList();
        DoubleList output = new DoubleList();
        DoubleList pause = new DoubleList();
        double[] calls = new double[sessions];
        double[] compactions = new double[sessions];
        int resets = 0;
        String system = SharedPrompt.of(cls);
        for (int i = 0; i < sessions; i++) {
            SessionScript script = new SessionScript(cls, i, 0);
            // Sizes are all these figures read: filler text of the script's lengths, not its words (ten times faster).
            SessionContext context = SessionContext.ofSizesOnly(script, system, window);
            calls[i] = script.steps();
            long previous = -1;
            boolean restart = true;
            for (int step = 1; step <= script.steps(); step++) {
                SessionContext.Call call = context.next(step);
                long tokens = context.promptTokens();
                prompt.add(tokens);
                output.add(call.maxTokens());
                if (previous >= 0 && !restart) {
                    growth.add(tokens - previous);
                } else if (previous >= 0) {
                    resets++;
                }
                if (step < script.steps() && !call.compaction()) {
                    pause.add(script.thinkTimeAfter(step).toNanos() / 1e9);
                }
                compactions[i] += call.compaction() ? 1 : 0;
                context.replied(call, SessionContext.filler(call.maxTokens()));
                previous = tokens;
                restart = call.compaction();
            }
        }
        Arrays.sort(calls);
        Arrays.sort(compactions);
        return new WorkloadStats(prompt.sorted(), growth.sorted(), output.sorted(), pause.sorted(), calls, compactions,
                prompt.size == 0 ? 0 : resets / (double) prompt.size);
    }

    /** The value at quantile {@code p} of sorted {@code values} (nearest rank). */
    public static double quantile(double[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        return values[(int) Math.min(values.length - 1, Math.max(0, Math.ceil(p * values.length) - 1))];
    }

    /** A Markdown table: p10 / p50 / p90 / p95 and the mean of every figure. */
    public String table() {
        StringBuilder md = new StringBuilder("| figure | p10 | p50 | p90 | p95 | mean |\n| --- | --- | --- | --- | --- | --- |\n");
        row(md, "pause before the next call, s", pauseSeconds, "%.1f");
        row(md, "calls per session", calls, "%,.0f");
        row(md, "prompt tokens per call", prompt, "%,.0f");
        row(md, "growth per call (extending calls), tokens", growth, "%,.0f");
        row(md, "output tokens per call", output, "%,.0f");
        row(md, "compactions per session", compactionsPerSession, "%.1f");
        md.append(String.format(Locale.ROOT, "%nCalls that do not extend the previous prompt (after a compaction): %.2f %%.%n",
                100 * resetShare));
        return md.toString();
    }

    private static void row(StringBuilder md, String name, double[] values, String format) {
        md.append("| ").append(name);
        for (double p : List.of(0.10, 0.50, 0.90, 0.95)) {
            md.append(" | ").append(String.format(Locale.ROOT, format, quantile(values, p)));
        }
        md.append(" | ").append(String.format(Locale.ROOT, format, Arrays.stream(values).average().orElse(Double.NaN))).append(" |\n");
    }

    /** A growable list of doubles: per-call figures run to hundreds of thousands. */
    private static final class DoubleList {
        private double[] values = new double[1024];
        private int size;

        void add(double v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        double[] sorted() {
            double[] out = Arrays.copyOf(values, size);
            Arrays.sort(out);
            return out;
        }
    }
}
