package io.lmwarden.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writes report.md, results.csv, results.json and the charts into the output directory. */
public final class ReportFiles {

    private ReportFiles() {
    }

    public static List<Path> write(BenchResults results, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        written.add(Files.writeString(dir.resolve("report.md"), MarkdownReport.render(results), StandardCharsets.UTF_8));
        written.add(Files.writeString(dir.resolve("results.csv"), CsvReport.render(results.medians()), StandardCharsets.UTF_8));
        written.add(Files.writeString(dir.resolve("results.json"), JsonReport.render(results), StandardCharsets.UTF_8));
        if (!results.medians().isEmpty()) {
            written.addAll(Charts.write(results.medians(), dir));
        }
        return written;
    }
}
