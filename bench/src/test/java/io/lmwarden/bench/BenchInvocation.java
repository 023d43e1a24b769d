package io.lmwarden.bench;

import io.lmwarden.bench.cli.BenchMain;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs {@code lmw-bench} as its command line would, capturing progress and stderr, and checks the exit code. */
public final class BenchInvocation {

    private BenchInvocation() {
    }

    /** The captured output; fails the test, showing that output, when the exit code is not {@code expectedExit}. */
    public static String run(List<String> args, int expectedExit) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream progress = new PrintStream(captured, true, StandardCharsets.UTF_8);
        PrintStream err = System.err;
        System.setErr(progress);
        int exit;
        try {
            exit = BenchMain.run(args.toArray(String[]::new), progress);
        } finally {
            System.setErr(err);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("exit code of %s; output:%n%s", Arrays.toString(args.toArray()), text).isEqualTo(expectedExit);
        return text;
    }
}
