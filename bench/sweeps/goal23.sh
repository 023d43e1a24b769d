#!/bin/sh
# Issue 23's goal sweep (bench/README.md, "Goal sweep: agents that pause"): pause means 0, 2, 10 and 30 s (jitter 0.75)
# and the claude-code-tools class, at 16, 32 and 48 sessions, policies least-loaded, affinity, cost and default, with the
# ceiling beside them, --repeat 3, on each simulator profile given (default: both). One run directory per profile and
# workload under $OUT, each with report.md, results.json (the goal verdict per stage in "goal"), the progress log and
# the load averages before and after in uptime.txt; then $OUT/summary.md, every cell's verdict in one table.
#
#   bench/sweeps/goal23.sh                                            # both profiles, about 7.5 hours
#   OUT=bench/results/goal23-h100 bench/sweeps/goal23.sh h100-qwen3-coder-30b-a3b   # one profile
#
# Run it from the repository's root after `mvn -B -o -pl bench -am package`, on an otherwise idle machine.
set -eu
JAR=${JAR:-bench/target/lmw-bench.jar}
OUT=${OUT:-bench/results/goal23}
COMMON="--simulate 4 --sessions 16,32,48 --policies least-loaded,affinity,cost,default --ceiling --repeat 3"

run() {
    name=$1
    shift
    dir="$OUT/$profile/$name"
    mkdir -p "$dir"
    echo "$(date -u +%FT%TZ) start, load average $(cut -d' ' -f1-3 /proc/loadavg)" > "$dir/uptime.txt"
    # shellcheck disable=SC2086 # COMMON is a list of options
    java -jar "$JAR" $COMMON --profile "$profile" "$@" --out "$dir" 2> "$dir/progress.log"
    echo "$(date -u +%FT%TZ) end, load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$dir/uptime.txt"
}

for profile in ${*:-a4000-qwen3-4b h100-qwen3-coder-30b-a3b}; do
    # Short pauses: the published A/B's workload and stages (fresh starts, 1 minute for the burst of first steps).
    run pause0 --time-scale 10 --think-time 0 --stage 3m --settle 1m
    run pause2 --time-scale 10 --think-time 2s --think-jitter 0.75 --stage 3m --settle 1m
    # Long pauses: sessions last 2-8 minutes; a steady start puts the sessions a stage adds mid-life at once, and the
    # windows are long enough for a few dozen sessions to end in them.
    run pause10 --time-scale 10 --think-time 10s --think-jitter 0.75 --start steady --stage 5m --settle 2m
    run pause30 --time-scale 10 --think-time 30s --think-jitter 0.75 --start steady --stage 6m --settle 3m
    # Real agents: sessions last hours; steady starts, 3 minutes for the joined sessions' cold first calls. On a 256k
    # window the requests are ~400 KB and cached calls answer in ~0.1 s: K = 5 keeps the instrument's per-request wall
    # cost (x K) out of TTFB (bench/README.md, the time-scale check for claude-code-tools).
    case "$profile" in
        a4000*) run claude-code-tools --time-scale 10 --workload claude-code-tools --stage 15m --settle 3m ;;
        *) run claude-code-tools --time-scale 5 --workload claude-code-tools --stage 10m --settle 3m ;;
    esac
done
java -jar "$JAR" summarize "$OUT"/*/* > "$OUT/summary.md" 2>&1 || true
echo "wrote $OUT/summary.md"
