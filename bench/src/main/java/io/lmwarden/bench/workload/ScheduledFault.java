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
 * <p>
 * Day-2 operations change the pool instead of breaking it (issue 26; {@code --simulate} with {@code --sim-processes} for
 * the replica ones): {@code upgrade replicas at 3m} (rolling: each replica in turn drained, its process stopped, a fresh
 * one started on its port, undrained once ready; {@code upgrade replica 1 at 3m} for one), {@code remove replica 3 at 2m}
 * (scale down: drained, then its process stopped), {@code add replica 2 at 1m} (scale up: the replica is listed from
 * the start but its process starts only then), {@code restart router 1 at 3m} ({@code --routers K}: taken out of the
 * bench's rotation, shut down as on SIGTERM, a new router started in its place; {@code restart routers at 3m} for all,
 * one after the other). For these {@code replica} is the replica's or the router's index, or {@link #ALL}.
 */
public record ScheduledFault(Duration at, int replica, Kind kind, int count, int status, Duration stall) {

    /** {@code upgrade replicas}, {@code restart routers}: every one, in turn. */
    public static final int ALL = -1;

    public enum Kind {
        KILL, FAIL, STALL, DROP, UNHEALTHY, DRAIN, UPGRADE, REMOVE, ADD, RESTART_ROUTER;

        /** Changes which replicas or routers exist (a Day-2 operation) rather than making one misbehave. */
        public boolean changesPool() {
            return this == UPGRADE || this == REMOVE || this == ADD || this == RESTART_ROUTER;
        }

        /** Needs the replicas in processes of their own: it stops and starts them. */
        public boolean needsProcesses() {
            return this == UPGRADE || this == REMOVE || this == ADD;
        }
    }

    public ScheduledFault {
        boolean allowsAll = kind == Kind.UPGRADE || kind == Kind.RESTART_ROUTER;
        if (at.isNegative() || (replica < 0 && !(replica == ALL && allowsAll)) || count < 1) {
            throw new IllegalArgumentException("a fault needs a time >= 0, a replica index >= 0 and a count >= 1");
        }
    }

    /** A Day-2 operation on one replica (or router), or on {@link #ALL}. */
    public static ScheduledFault operation(Kind kind, int index, Duration at) {
        return new ScheduledFault(at, index, kind, 1, 0, Duration.ZERO);
    }

    public static ScheduledFault parse(String text) {
        String[] w = text.trim().toLowerCase(Locale.ROOT).replace("×", " x ").split("\\s+");
        try {
            ScheduledFault operation = parseOperation(w);
            if (operation != null) {
                return operation;
            }
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
                    + "'drop x 5 replica 1 at 1m', 'unhealthy replica 3 at 2m', 'drain replica 1 at 1m', 'upgrade replicas at 3m', "
                    + "'remove replica 3 at 2m', 'add replica 2 at 1m', 'restart router 1 at 3m' or 'restart routers at 3m'");
        }
    }

    /**
     * {@code upgrade replicas|replica I at T}, {@code remove|add replica I at T}, {@code restart routers|router I at T};
     * null when the words are no Day-2 operation.
     */
    private static ScheduledFault parseOperation(String[] w) {
        Kind kind = switch (w[0]) {
            case "upgrade" -> Kind.UPGRADE;
            case "remove" -> Kind.REMOVE;
            case "add" -> Kind.ADD;
            case "restart" -> Kind.RESTART_ROUTER;
            default -> null;
        };
        if (kind == null) {
            return null;
        }
        String one = kind == Kind.RESTART_ROUTER ? "router" : "replica";
        int i = 1;
        int index;
        if (w[i].equals(one + "s") && (kind == Kind.UPGRADE || kind == Kind.RESTART_ROUTER)) {
            index = ALL;
            i++;
        } else {
            expect(w[i++], one);
            index = Integer.parseInt(w[i++]);
            if (index < 0) {
                throw new IllegalArgumentException("a replica index >= 0, got " + index);
            }
        }
        expect(w[i++], "at");
        Duration at = Durations.parse(w[i++]);
        if (i != w.length) {
            throw new IllegalArgumentException("unexpected '" + w[i] + "'");
        }
        return operation(kind, index, at);
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
            case UPGRADE, REMOVE, ADD, RESTART_ROUTER -> throw new IllegalStateException(describe() + " changes the pool; "
                    + "no simulator fault does that");
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
            case UPGRADE -> "upgrade";
            case REMOVE -> "remove";
            case ADD -> "add";
            case RESTART_ROUTER -> "restart";
        };
        String subject = kind == Kind.RESTART_ROUTER ? "router" : "replica";
        return what + (replica == ALL ? " " + subject + "s" : " " + subject + " " + replica) + " at " + at.toMillis() / 1000.0 + "s";
    }
}
