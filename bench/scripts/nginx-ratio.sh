#!/usr/bin/env bash
# The router's requests/s beside nginx's, as reverse proxies in front of the same simulated replica.
#
#   bench/scripts/nginx-ratio.sh [name=router.jar ...] ["name=router.jar --flag value" ...]   (from the repository root, after mvn package)
#
# Starts one simulated replica (sim/target/lmw-sim.jar, profile tiny at time scale 1000: the engine's
# own time is negligible), nginx in front of it (non-root, a temporary prefix, keepalive upstream,
# 127.0.0.1 only) and each given router jar in front of the same replica (default: the one just built,
# router/target/lmw-router.jar). Then wrk (32 connections, bench/scripts/wrk-chat.lua: a small
# non-streaming chat completion with a session header) runs against nginx and each router in turn,
# ROUNDS rounds of DURATION each, and the medians of requests/s, p50 and p99 are printed with each
# router's ratio to nginx, and `uptime` before and after. Beside requests/s, the CPU each proxy's processes used per
# request (nginx's master and workers; the router's JVM, GC and JIT included) and nginx's CPU per request over
# the router's: on a machine that other work keeps busy, requests/s says more about the others than about the
# proxies, while CPU per request stays what each proxy costs. Several jars (before=old.jar after=new.jar)
# are measured side by side in the same run, alternating, so machine load hits them alike.
# Environment: ROUNDS (3), DURATION (10s), WARMUP (10s per target), CONNECTIONS (32), THREADS (2),
# NGINX_WORKERS (2, one per core here), NGINX_ACCESS_LOG (on: a line per request to a file, nginx's default, as the
# router writes its request log; off), KEEP (set: keep the temporary directory with logs).
set -euo pipefail
BASE_ROUTER_ARGS=${ROUTER_ARGS:-}

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
NGINX_WORKERS=${NGINX_WORKERS:-2}
NGINX_ACCESS_LOG=${NGINX_ACCESS_LOG:-on}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ]; then
  set -- "router=$ROOT/router/target/lmw-router.jar"
fi
WORK=$(mktemp -d /tmp/nginx-ratio.XXXXXX)
. "$ROOT/bench/scripts/lib.sh"
# A target is name=jar, or "name=jar --flag value ..." with router flags of its own (e.g. "nio=router.jar --transport nio").
target_jar() { local rest=${1#*=}; echo "${rest%% *}"; }
target_args() { local rest=${1#*=}; [[ "$rest" == *" "* ]] && echo "${rest#* }" || true; }
for spec in "$@"; do
  need_jar "$(target_jar "$spec")"
done
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 2; }
cleanup() {
  stop_all
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

start_sim

NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes $NGINX_WORKERS;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  $( [ "$NGINX_ACCESS_LOG" = off ] && echo "access_log off;" || echo "access_log $WORK/nginx/logs/access.log;" )
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  upstream replica {
    server 127.0.0.1:$SIM_PORT;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    client_max_body_size 32m;
    location / {
      proxy_pass http://replica;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
CONF
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log"
wait_http "http://127.0.0.1:$NGINX_PORT/health"

NGINX_MASTER=$(cat "$WORK/nginx/nginx.pid")
NAMES=(nginx)
URLS=("http://127.0.0.1:$NGINX_PORT/v1/chat/completions")
# The processes whose CPU counts for each target: nginx's master and workers; each router's JVM.
PROCS=("$NGINX_MASTER $(pgrep -P "$NGINX_MASTER" | tr '\n' ' ')")
for spec in "$@"; do
  ROUTER_ARGS="${BASE_ROUTER_ARGS:-} $(target_args "$spec")" start_router "${spec%%=*}" "$(target_jar "$spec")"
  NAMES+=("${spec%%=*}")
  URLS+=("http://127.0.0.1:$ROUTER_PORT/v1/chat/completions")
  PROCS+=("$ROUTER_PID")
done

echo "uptime before: $(uptime)"
echo "targets: ${NAMES[*]}; wrk -t${THREADS:-2} -c${CONNECTIONS:-32} -d$DURATION, $ROUNDS rounds alternating; warm-up $WARMUP each;" \
  "nginx: $NGINX_WORKERS workers, access log $NGINX_ACCESS_LOG"
# A sanity check that each answers 200 through the script's request.
for i in "${!NAMES[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H 'X-Session-Id: wrk-ratio-session' \
    -d '{"model":"Qwen/Qwen3-4B-Instruct-2507","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' "${URLS[$i]}")
  [ "$code" = 200 ] || { echo "${NAMES[$i]} answered $code" >&2; exit 1; }
  run_wrk "$WARMUP" "${URLS[$i]}" ${PROCS[$i]} > /dev/null
done

declare -A RPS P50 P99 BAD CPU
for round in $(seq 1 "$ROUNDS"); do
  order=("${!NAMES[@]}")
  if (( round % 2 == 0 )); then # every other round in reverse, so no target always follows the same one
    order=($(printf '%s\n' "${order[@]}" | tac))
  fi
  for i in "${order[@]}"; do
    read -r rps p50 p99 bad cpu < <(run_wrk "$DURATION" "${URLS[$i]}" ${PROCS[$i]})
    n=${NAMES[$i]}
    RPS[$n]+="$rps "; P50[$n]+="$p50 "; P99[$n]+="$p99 "; CPU[$n]+="$cpu "; BAD[$n]=$(( ${BAD[$n]:-0} + bad ))
    printf 'round %d  %-8s %8s req/s  p50 %7s ms  p99 %7s ms  %6s µs CPU/req  non-2xx %s   load %s\n' "$round" "$n" "$rps" "$p50" \
      "$p99" "$cpu" "$bad" "$(cut -d' ' -f1-3 /proc/loadavg)"
  done
done

median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
printf '%-8s %10s %10s %10s %8s %9s %12s %13s\n' target "req/s" "p50 ms" "p99 ms" non-2xx "× nginx" "µs CPU/req" "nginx/this CPU"
base=$(median "${RPS[nginx]}")
basecpu=$(median "${CPU[nginx]}")
for n in "${NAMES[@]}"; do
  r=$(median "${RPS[$n]}")
  c=$(median "${CPU[$n]}")
  printf '%-8s %10s %10s %10s %8s %9s %12s %13s\n' "$n" "$r" "$(median "${P50[$n]}")" "$(median "${P99[$n]}")" "${BAD[$n]}" \
    "$(awk -v a="$r" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" "$c" \
    "$(awk -v a="$c" -v b="$basecpu" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
done
echo "medians of $ROUNDS rounds"
echo "uptime after: $(uptime)"
