package io.lmwarden.bench.workload;

import io.lmwarden.common.Durations;

import java.time.Duration;
import java.util.Locale;

/**
 * A fault at a given time of each variant (workload time from the variant's start), on one replica:
 * {@code kill replica 1 at 5m}, {@code stall 2s x 20 replica 0 at 1m}, {@code 503 x 20 replica 2 at 30s},
 * {@code drop x 5 replica 1 at 1m}, {@code unhealthy replica 3 at 2m}, {@code drain replica 1 at 1m}. A drain goes to the
 * router ({@code POST /api/replicas/{id}/drain}): the replica takes no new sessions, its sessions move as {@code DRAIN}.
 * Kills stop the simulated replica (its
 * streams end cut, new connections are refused): in-process by closing it, a separate process with SIGKILL, a remote
 * simulator through its {@code /sim/faults} crash fault; the others arm the simulator's {@code /sim/faults}.
 */
public record ScheduledFault(Duration at, int replica, Kind kind, int count, int status, Duration stall) {

    public enum Kind { KILL, FAIL, STALL, DROP, UNHEALTHY, DRAIN }

    public ScheduledFault {
        if (at.isNegative() || replica < 0 || count < 1) {
            throw new IllegalArgumentException("a fault needs a time >= 0, a replica index >= 0 and a count >= 1");
        }
    }

    public static ScheduledFault parse(String text) {
        String[] w = text.trim().toLowerCase(Locale.ROOT).replace("×", " x ").split("\\s+");
        try {
            int i = 0;
            Kind kind;
            int status = 503;
            Duration stall = Duration.ZERO;
            switch (w[i]) {
                case "kill" -> kind = Kind.KILL;
                case "unhealthy" -> kind = Kind.UNHEALTHY;
                case "drain" -> kind = Kind.DRAIN;
                case "drop" -> kind = Kind.DROP;
                case "stall" -> {
                    kind = Kind.STALL;
                    stall = Durations.parse(w[++i]);
                }
                default -> {
                    kind = Kind.FAIL;
                    status = Integer.parseInt(w[i]);
                    if (status < 400 || status > 599) {
                        throw new IllegalArgumentException("status " + status + " is not an error status");
                    }
                }
            }
            i++;
            int count = 1;
            if (w[i].equals("x")) {
                count = Integer.parseInt(w[i + 1]);
                i += 2;
            } else if (w[i].startsWith("x") && w[i].length() > 1) {
                count = Integer.parseInt(w[i].substring(1));
                i++;
            }
            expect(w[i++], "replica");
            int replica = Integer.parseInt(w[i++]);
            expect(w[i++], "at");
            Duration at = Durations.parse(w[i++]);
            if (i != w.length) {
                throw new IllegalArgumentException("unexpected '" + w[i] + "'");
            }
            return new ScheduledFault(at, replica, kind, count, status, stall);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("fault '" + text + "': " + (e.getMessage() == null ? e.toString() : e.getMessage())
                    + "; write e.g. 'kill replica 1 at 5m', 'stall 2s x 20 replica 0 at 1m', '503 x 20 replica 2 at 30s', "
                    + "'drop x 5 replica 1 at 1m', 'unhealthy replica 3 at 2m' or 'drain replica 1 at 1m'");
        }
    }

    private static void expect(String word, String wanted) {
        if (!word.equals(wanted)) {
            throw new IllegalArgumentException("expected '" + wanted + "', got '" + word + "'");
        }
    }

    /**
     * The body for the simulator's POST /sim/faults. A kill sent there is the crash fault: a simulator process of its
     * own ends itself as kill -9 would (one running in-process refuses).
     */
    public String simFaultsBody() {
        return switch (kind) {
            case FAIL -> "{\"failNext\":" + count + ",\"status\":" + status + "}";
            case STALL -> "{\"stallNext\":" + count + ",\"stallMs\":" + stall.toMillis() + "}";
            case DROP -> "{\"dropNext\":" + count + ",\"afterChunks\":2}";
            case UNHEALTHY -> "{\"unhealthy\":true}";
            case KILL -> "{\"crash\":true}";
            case DRAIN -> throw new IllegalStateException("a drain goes to the router's POST /api/replicas/{id}/drain, not to the replica");
        };
    }

    public String describe() {
        String what = switch (kind) {
            case KILL -> "kill";
            case UNHEALTHY -> "unhealthy";
            case DRAIN -> "drain";
            case DROP -> "drop x " + count;
            case STALL -> "stall " + stall.toMillis() + "ms x " + count;
            case FAIL -> status + " x " + count;
        };
        return what + " replica " + replica + " at " + at.toMillis() / 1000.0 + "s";
    }
}
