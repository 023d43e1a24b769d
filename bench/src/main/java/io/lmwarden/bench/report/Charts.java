package io.lmwarden.bench.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The PNG charts: TTFB p50/p95 (log scale), prefix hits % and output tokens/min, per stage and policy. */
public final class Charts {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;
    /** One colour per policy, so that its p50 and p95 lines read as a pair. */
    private static final java.awt.Color[] PALETTE = {
        new java.awt.Color(0x1f77b4), new java.awt.Color(0xd62728), new java.awt.Color(0x2ca02c),
        new java.awt.Color(0x9467bd), new java.awt.Color(0xff7f0e), new java.awt.Color(0x8c564b)};
    private static final java.awt.Color ORACLE = java.awt.Color.GRAY;

    private Charts() {
    }

    public static List<Path> write(List<StageResult> rows, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Path> written = new ArrayList<>();
        XYChart ttfb = chart("Time to first token (client side, workload time)", "TTFB (s, log scale)");
        ttfb.getStyler().setYAxisLogarithmic(true);
        for (String policy : Medians.policies(rows)) {
            addSeries(ttfb, rows, policy, policy + " p50", r -> r.latency().ttfbP50(), SeriesLines.SOLID, true, colour(rows, policy));
            addSeries(ttfb, rows, policy, policy + " p95", r -> r.latency().ttfbP95(), SeriesLines.DASH_DASH, true, colour(rows, policy));
        }
        written.add(save(ttfb, dir.resolve("ttfb.png")));

        XYChart hits = chart("Prefix cache hits (token-weighted)", "prefix hits %");
        for (String policy : Medians.policies(rows)) {
            addSeries(hits, rows, policy, policy, r -> r.cache().prefixHitPct(), SeriesLines.SOLID, false, colour(rows, policy));
        }
        addSeries(hits, rows, Medians.policies(rows).get(0), "oracle bound", r -> r.cache().oracleHitPct(), SeriesLines.DOT_DOT,
                false, ORACLE);
        written.add(save(hits, dir.resolve("prefix_hits.png")));

        XYChart tokens = chart("Output tokens per minute (workload time)", "output tokens / min");
        for (String policy : Medians.policies(rows)) {
            addSeries(tokens, rows, policy, policy, r -> r.throughput().outputTokensPerMin(), SeriesLines.SOLID, false,
                    colour(rows, policy));
        }
        written.add(save(tokens, dir.resolve("output_tokens.png")));
        return written;
    }

    private static XYChart chart(String title, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("concurrent sessions").yAxisTitle(yTitle).build();
        chart.getStyler().setMarkerSize(7);
        return chart;
    }

    private static void addSeries(XYChart chart, List<StageResult> rows, String policy, String name,
                                  ToDoubleFunction<StageResult> figure, java.awt.BasicStroke line, boolean positiveOnly,
                                  java.awt.Color colour) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (StageResult r : rows) {
            double y = figure.applyAsDouble(r);
            if (r.policy().equals(policy) && !Double.isNaN(y) && (!positiveOnly || y > 0)) {
                xs.add((double) r.sessions());
                ys.add(y);
            }
        }
        if (xs.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(name, xs, ys);
        series.setLineStyle(line);
        series.setMarker(SeriesMarkers.CIRCLE);
        series.setLineColor(colour);
        series.setMarkerColor(colour);
    }

    private static java.awt.Color colour(List<StageResult> rows, String policy) {
        return PALETTE[Medians.policies(rows).indexOf(policy) % PALETTE.length];
    }

    private static Path save(XYChart chart, Path file) throws IOException {
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
