#!/usr/bin/env bash
# Where the router's CPU goes for a small non-streaming request: the router in front of one simulated
# replica on loopback, under wrk (32 connections, bench/scripts/wrk-chat.lua), recorded by JFR
# (execution samples every 2 ms, after a warm-up), then charged to the parts of the request path by
# io.lmwarden.bench.micro.ProfileShares.
#
#   bench/scripts/profile-router.sh [router.jar] [out.jfr]      (from the repository root, after mvn package)
#
# Environment: WARMUP (20s), RECORD (30s), CONNECTIONS (32), THREADS (2), TOP (30 frames listed).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAR=${1:-$ROOT/router/target/lmw-router.jar}
OUT=${2:-$PWD/router-profile.jfr}
WARMUP=${WARMUP:-20s}
RECORD=${RECORD:-30s}
WORK=$(mktemp -d /tmp/profile-router.XXXXXX)
. "$ROOT/bench/scripts/lib.sh"
trap 'stop_all; rm -rf "$WORK"' EXIT
need_jar "$ROOT/bench/target/lmw-bench.jar"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

start_sim
start_router router "$JAR" "-XX:StartFlightRecording=filename=$OUT,settings=profile,jdk.ExecutionSample#period=2ms,delay=$WARMUP,duration=$RECORD"
secs() { echo "${1%s}"; }
echo "uptime before: $(uptime)"
read -r rps p50 p99 bad < <(run_wrk "$(( $(secs "$WARMUP") + $(secs "$RECORD") + 2 ))s" "http://127.0.0.1:$ROUTER_PORT/v1/chat/completions")
echo "wrk: $rps req/s, p50 $p50 ms, p99 $p99 ms, non-2xx $bad (warm-up and recording together)"
echo "uptime after: $(uptime)"
stop_all
java -cp "$ROOT/bench/target/lmw-bench.jar" io.lmwarden.bench.micro.ProfileShares "$OUT" "${TOP:-30}"
