package io.lmwarden.bench.micro;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Where a router's CPU went, from a JFR recording: each execution sample is charged to the part of the
 * request path its stack is in (body parsing, hashing, placement, metrics and accounting, logging, the
 * router's own proxy code, Vert.x/Netty HTTP, other), and the shares are printed, with the top leaf frames.
 * Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.ProfileShares recording.jfr [top]}
 * ({@code bench/scripts/profile-router.sh} records one under wrk).
 */
public final class ProfileShares {

    /** A part of the path and how to recognise a frame of it; the first part a stack's frames match, leaf first, wins. */
    record Part(String name, Predicate<String> frame) {
    }

    private static final String R = "io.lmwarden.router.";

    /**
     * Frames are "class.method". Library frames are charged to the router code that called them, except
     * logging and metrics libraries, which are charged to themselves wherever they are called from.
     */
    static final List<Part> PARTS = List.of(
            new Part("logging", f -> f.startsWith("java.util.logging.") || f.startsWith(R + "stats.RequestLog.") || f.startsWith(R + "stats.LineWriter.")
                    || f.startsWith("io.lmwarden.common.logging.")),
            new Part("metrics+accounting", f -> f.startsWith("io.micrometer.") || f.startsWith("io.prometheus.")
                    || f.startsWith(R + "stats.") || f.startsWith(R + "diagnostics.")),
            new Part("hashing", f -> f.startsWith(R + "session.CanonicalPrompt.shape") || f.startsWith(R + "session.CanonicalPrompt.hash")
                    || f.startsWith(R + "session.SessionKey.sha256") || f.startsWith(R + "session.SessionKey.displayHash")
                    || f.startsWith(R + "session.ConversationLineages.") || f.startsWith("sun.security.provider.")),
            new Part("body parsing", f -> f.startsWith(R + "session.") || f.startsWith(R + "tenant.") || f.startsWith(R + "proxy.ProxyHandler.")),
            new Part("placement", f -> f.startsWith(R + "placement.") || f.startsWith(R + "pool.")),
            new Part("router proxy code", f -> f.startsWith(R)),
            new Part("Vert.x/Netty HTTP", f -> f.startsWith("io.vertx.") || f.startsWith("io.netty.")));

    private ProfileShares() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: ProfileShares recording.jfr [top-frames]");
            System.exit(2);
        }
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        Map<String, Integer> parts = new TreeMap<>();
        Map<String, Integer> leaves = new TreeMap<>();
        Map<String, Integer> threads = new TreeMap<>();
        Map<String, Integer> routerFrames = new TreeMap<>();
        Map<String, Long> allocatedByPart = new TreeMap<>();
        Map<String, Long> allocatedByRouterFrame = new TreeMap<>();
        long allocated = 0;
        int total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (e.getStackTrace() == null) {
                continue;
            }
            if (e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
                // Each sample stands for the bytes allocated since the thread's previous one.
                List<String> frames = e.getStackTrace().getFrames().stream().map(ProfileShares::name).toList();
                long w = e.getLong("weight");
                allocated += w;
                allocatedByPart.merge(partOf(frames), w, Long::sum);
                allocatedByRouterFrame.merge(nearestRouterFrame(frames), w, Long::sum);
                continue;
            }
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            total++;
            RecordedStackTrace st = e.getStackTrace();
            List<String> frames = st.getFrames().stream().map(ProfileShares::name).toList();
            parts.merge(partOf(frames), 1, Integer::sum);
            leaves.merge(frames.isEmpty() ? "?" : frames.get(0), 1, Integer::sum);
            routerFrames.merge(nearestRouterFrame(frames), 1, Integer::sum);
            String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
            threads.merge(thread == null ? "?" : thread.replaceAll("-\\d+$", "-N"), 1, Integer::sum);
        }
        System.out.printf("%d execution samples in %s%n%n", total, args[0]);
        print("part of the request path", parts, total, Integer.MAX_VALUE);
        print("thread", threads, total, 10);
        print("router method nearest the leaf", routerFrames, total, top);
        print("leaf frame", leaves, total, top);
        System.out.printf("allocation samples: %,d MB in all%n", allocated >> 20);
        printBytes("allocated, by part", allocatedByPart, allocated, Integer.MAX_VALUE);
        printBytes("allocated, by router method nearest the leaf", allocatedByRouterFrame, allocated, top);
    }

    private static String nearestRouterFrame(List<String> frames) {
        return frames.stream().filter(f -> f.startsWith("io.lmwarden.")).findFirst().orElse("(no router frame)");
    }

    private static void printBytes(String title, Map<String, Long> bytes, long total, int limit) {
        System.out.printf("%-70s %9s %7s%n", title, "MB", "share");
        bytes.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(limit)
                .forEach(en -> System.out.printf("%-70s %9d %6.1f%%%n", en.getKey(), en.getValue() >> 20, 100.0 * en.getValue() / total));
        System.out.println();
    }

    /** The part of the first frame, leaf first, that belongs to one; "other (JDK, JIT'd glue)" when none does. */
    static String partOf(List<String> frames) {
        for (String f : frames) {
            for (Part p : PARTS) {
                if (p.frame().test(f)) {
                    return p.name();
                }
            }
        }
        return "other (JDK)";
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static void print(String title, Map<String, Integer> counts, int total, int limit) {
        System.out.printf("%-70s %7s %7s%n", title, "samples", "share");
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(limit)
                .forEach(en -> System.out.printf("%-70s %7d %6.1f%%%n", en.getKey(), en.getValue(), 100.0 * en.getValue() / total));
        System.out.println();
    }
}
