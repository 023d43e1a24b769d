package io.lmwarden.bench.micro;

import io.lmwarden.sim.tokens.ChunkTokenizer;
import io.lmwarden.sim.tokens.FillerText;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's tokenizer on a 100 KB prompt, which it runs on every request's body (an agent's long session sends
 * one per turn): {@code words100kB}, words with a newline now and then (each ends a token early, so the token array
 * grows past its first guess); {@code filler100kB}, the simulator's own reply text, four characters per token. The
 * sim's functional test only checks the counts; its former bound was under 20 ms a tokenization.
 * <pre>
 * java -cp bench/target/lmw-bench.jar org.openjdk.jmh.Main PromptTokenization -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PromptTokenization {

    private static final int CHARS = 100_000;

    private String words;
    private String filler;

    @Setup
    public void setUp() {
        StringBuilder sb = new StringBuilder(CHARS + 16);
        SplittableRandom random = new SplittableRandom(3);
        while (sb.length() < CHARS) {
            int len = 2 + random.nextInt(8);
            for (int i = 0; i < len; i++) {
                sb.append((char) ('a' + random.nextInt(26)));
            }
            sb.append(random.nextInt(12) == 0 ? '\n' : ' ');
        }
        words = sb.toString();
        filler = FillerText.of(CHARS / 4, 3);
    }

    @Benchmark
    public int[] words100kB() {
        return ChunkTokenizer.tokenize(words);
    }

    @Benchmark
    public int[] filler100kB() {
        return ChunkTokenizer.tokenize(filler);
    }
}
