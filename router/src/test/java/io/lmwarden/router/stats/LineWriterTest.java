package io.lmwarden.router.stats;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LineWriterTest {

    @Test
    void writesEveryLineInOrderAndWhatIsQueuedOnClose() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LineWriter writer = new LineWriter(out, 10_000, "test-lines");
        for (int i = 0; i < 5_000; i++) {
            assertThat(writer.offer("line " + i)).isTrue();
        }
        writer.close(Duration.ofSeconds(10));
        String[] lines = out.toString(StandardCharsets.UTF_8).split(System.lineSeparator());
        assertThat(lines).hasSize(5_000);
        for (int i = 0; i < 5_000; i++) {
            assertThat(lines[i]).isEqualTo("line " + i);
        }
        assertThat(writer.written()).isEqualTo(5_000);
        assertThat(writer.dropped()).isZero();
        assertThat(writer.offer("after close")).as("a closed writer takes no more lines").isFalse();
    }

    @Test
    void aStuckOutputNeverHoldsUpTheCallerLinesBeyondTheQueueAreDroppedAndCounted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch firstWrite = new CountDownLatch(1);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        // stderr into a pipe nobody reads: the first write blocks until released.
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {
                throw new UnsupportedOperationException("batches are written whole");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                firstWrite.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                written.write(b, off, len);
            }
        };
        LineWriter writer = new LineWriter(stuck, 100, "test-stuck");
        assertThat(writer.offer("first")).isTrue();
        assertThat(firstWrite.await(10, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        int taken = 0;
        for (int i = 0; i < 1_000; i++) {
            if (writer.offer("line " + i)) {
                taken++;
            }
        }
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(taken).as("the queue's capacity, no more").isEqualTo(100);
        assertThat(writer.dropped()).isEqualTo(900);
        assertThat(tookMs).as("1,000 offers against a stuck output return at once, not after a write").isLessThan(5_000);
        release.countDown();
        writer.close(Duration.ofSeconds(10));
        String[] lines = written.toString(StandardCharsets.UTF_8).split(System.lineSeparator());
        assertThat(lines).hasSize(101);
        assertThat(lines[0]).isEqualTo("first");
        assertThat(lines[100]).isEqualTo("line 99");
    }
}
