package io.lmwarden.router.stats;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes lines to an output stream from a thread of its own, so that an event loop that logs a request never
 * waits for stderr: a container runtime's log pipe that fills up (a slow collector) would otherwise stop the
 * router. Lines are written in the order given, in batches (one write per batch). When {@code capacity} lines
 * are waiting, a new line is dropped and counted ({@link #dropped()}, a metric), never waited for.
 */
public final class LineWriter implements AutoCloseable {

    private final BlockingQueue<String> queue;
    private final OutputStream out;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final Thread thread;
    private volatile boolean closing;

    public LineWriter(OutputStream out, int capacity, String threadName) {
        this.out = out;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.thread = new Thread(this::drain, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues one line (without its line break); false when it was dropped because the queue is full. */
    public boolean offer(String line) {
        if (closing || !queue.offer(line)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    public long dropped() {
        return dropped.get();
    }

    public long written() {
        return written.get();
    }

    private void drain() {
        List<String> batch = new ArrayList<>(256);
        StringBuilder text = new StringBuilder(16 * 1024);
        String separator = System.lineSeparator();
        while (true) {
            try {
                String first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closing && queue.isEmpty()) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 1023);
                for (String line : batch) {
                    text.append(line).append(separator);
                }
                byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
                // One write for the batch: a PrintStream writes it whole, between other writers' lines.
                out.write(bytes, 0, bytes.length);
                out.flush();
                written.addAndGet(batch.size());
            } catch (InterruptedException e) {
                // Nobody but a JVM shutdown interrupts this thread; what is queued is still written.
            } catch (IOException e) {
                // stderr gone: nothing to report to. The lines of this batch are counted as dropped.
                dropped.addAndGet(batch.size());
            } finally {
                batch.clear();
                text.setLength(0);
            }
        }
    }

    /** Stops taking lines and writes those queued, waiting at most {@code wait}. */
    public void close(Duration wait) {
        closing = true;
        try {
            thread.join(Math.max(1, wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
