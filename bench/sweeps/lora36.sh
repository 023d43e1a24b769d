#!/bin/sh
# Issue 36's goal runs (bench/README.md, "LoRA adapters"): 4 simulated replicas at max_loras 4, the lora-adapters
# workload (16 adapters of Zipf(1) popularity, half the sessions on them), 32 sessions, --repeat 3; default against the
# other policies, and default with adapter-aware placement off (--router-set adapterPlacement=false). One run directory
# per profile and variant set under $OUT, each with report.md, results.json, the progress log and the load averages
# before and after in uptime.txt.
#
#   bench/sweeps/lora36.sh                                   # both profiles, about 20 minutes on an idle machine
#   bench/sweeps/lora36.sh h100-qwen3-coder-30b-a3b          # one profile
#
# Run it from the repository's root after `mvn -B -o -pl bench -am package`.
set -eu
JAR=${JAR:-bench/target/lmw-bench.jar}
OUT=${OUT:-bench/results/2026-12-07-lora-adapters}
COMMON="--simulate 4 --workload bench/workloads/lora-adapters.yaml --max-loras 4 --sessions 32 --stage 3m --settle 1m --repeat 3"

run() {
    dir="$OUT/$1"
    shift
    mkdir -p "$dir"
    echo "$(date -u +%FT%TZ) start, load average $(cut -d' ' -f1-3 /proc/loadavg)" > "$dir/uptime.txt"
    # shellcheck disable=SC2086 # COMMON is a list of options
    nice -n 19 java -jar "$JAR" $COMMON "$@" --out "$dir" 2> "$dir/progress.log"
    echo "$(date -u +%FT%TZ) end, load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$dir/uptime.txt"
}

for profile in ${*:-a4000-qwen3-4b h100-qwen3-coder-30b-a3b}; do
    short=$(echo "$profile" | cut -d- -f1)
    run "goal-$short" --profile "$profile" --policies default,least-loaded,affinity,cost
    run "goal-$short-placement-off" --profile "$profile" --policies default --router-set adapterPlacement=false
done
