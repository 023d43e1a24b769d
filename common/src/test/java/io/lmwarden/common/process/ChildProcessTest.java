package io.lmwarden.common.process;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real processes (a shell, this JVM's java): output lines, waiting for one, signals, graceful stop and kill. */
class ChildProcessTest {

    @Test
    void readsItsLinesWaitsForOneAndStopsItGracefully(@TempDir Path dir) {
        Path log = dir.resolve("jvm.log");
        // The shutdown hook proves the graceful stop: SIGTERM lets the JVM write its last line.
        try (ChildProcess jvm = ChildProcess.jvm(Waiter.class.getName(), List.of("-Xmx32m")).name("waiter")
                .env(Map.of("GREETING", "world")).log(log).start()) {
            assertThat(jvm.awaitLine(l -> l.equals("ready"), Duration.ofSeconds(60), false)).isEqualTo("ready");
            assertThat(jvm.output()).contains("hello world");
            assertThat(jvm.alive()).isTrue();
            jvm.close();
            assertThat(jvm.alive()).isFalse();
        }
        waitForLog(log, "stopping");
    }

    @Test
    void aFrozenProcessIsThawedSoThatItCanStopAndKillEndsItAtOnce() {
        ChildProcess sh = ChildProcess.command(List.of("sh", "-c", "echo up; while true; do sleep 0.1; done")).start();
        sh.awaitLine("up"::equals, Duration.ofSeconds(20), false);
        sh.signal("STOP");
        sh.close();
        assertThat(sh.alive()).isFalse();

        ChildProcess other = ChildProcess.command(List.of("sh", "-c", "echo up; while true; do sleep 0.1; done")).start();
        other.awaitLine("up"::equals, Duration.ofSeconds(20), false);
        assertThat(other.kill()).as("SIGKILL's exit status").isEqualTo(137);
        other.close();
    }

    @Test
    void aProcessThatEndsWithoutTheLineIsReportedWithItsOutput() {
        try (ChildProcess sh = ChildProcess.command(List.of("sh", "-c", "echo something else; exit 3")).name("short").start()) {
            assertThatThrownBy(() -> sh.awaitLine("ready"::equals, Duration.ofSeconds(20), false))
                    .hasMessageContaining("short exited with 3").hasMessageContaining("something else");
        }
    }

    @Test
    void aJvmOnThisClasspathAndAShortCommand() {
        try (ChildProcess jvm = ChildProcess.jvm(Echo.class.getName(), List.of("-Xmx32m")).args(List.of("a", "b")).start()) {
            assertThat(jvm.awaitLine(l -> l.startsWith("args"), Duration.ofSeconds(60), false)).isEqualTo("args a b");
            assertThat(jvm.waitFor(Duration.ofSeconds(60))).isZero();
        }
        ChildProcess.Result r = ChildProcess.run(List.of("cat"), "through stdin", Duration.ofSeconds(20));
        assertThat(r.exitValue()).isZero();
        assertThat(r.output()).isEqualTo("through stdin");
    }

    private static void waitForLog(Path log, String text) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (Files.readString(log).contains(text)) {
                    return;
                }
                Thread.sleep(20);
            } catch (Exception e) {
                // not written yet
            }
        }
        assertThat(log).content().contains(text);
    }

    /** A child JVM that waits to be stopped, and says so when it is. */
    public static final class Waiter {
        public static void main(String[] args) throws InterruptedException {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("stopping")));
            System.out.println("hello " + System.getenv("GREETING"));
            System.out.println("ready");
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** The child JVM of the test: prints its arguments. */
    public static final class Echo {
        public static void main(String[] args) {
            System.out.println("args " + String.join(" ", args));
        }
    }
}
