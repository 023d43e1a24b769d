#!/bin/bash
# Issue 25's prediction goal: a router on 4 simulated replicas with KV events (the default with --simulate), the bench
# through it at 32 sessions (OpenAI chat API, keyed), then the per-step prediction against the engine's cached_tokens.
#   bench/results/issue25-kvview/run-prediction.sh POLICY DIR [ROUTER_JAR] [BENCH_JAR]
# POLICY: default (the router's out-of-the-box configuration) or a policy name (admission off).
set -eu
policy=$1; out=$2; rjar=${3:-router/target/lmw-router.jar}; bjar=${4:-bench/target/lmw-bench.jar}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
port=18100
java -jar "$rjar" --simulate 4 --time-scale 10 --port $port > "$out/router.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for i in $(seq 1 60); do curl -sf localhost:$port/readyz >/dev/null && break; sleep 1; done
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/uptime.txt"
java -jar "$bjar" --target http://127.0.0.1:$port --sessions 32 --api openai --stage 10m --settle 1m --time-scale 10 \
    --repeat 1 --policies "$policy" --out "$out" > "$out/bench.log" 2>&1
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime.txt"
python3 "$here/prediction-distribution.py" http://127.0.0.1:$port > "$out/prediction.txt"
cat "$out/prediction.txt" | head -5
