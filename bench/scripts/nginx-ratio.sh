#!/usr/bin/env bash
# The router's requests/s beside nginx's, as reverse proxies in front of the same simulated replica.
#
#   bench/scripts/nginx-ratio.sh [name=router.jar ...]     (from the repository root, after mvn package)
#
# Starts one simulated replica (sim/target/lmw-sim.jar, profile tiny at time scale 1000: the engine's
# own time is negligible), nginx in front of it (non-root, a temporary prefix, keepalive upstream,
# 127.0.0.1 only) and each given router jar in front of the same replica (default: the one just built,
# router/target/lmw-router.jar). Then wrk (32 connections, bench/scripts/wrk-chat.lua: a small
# non-streaming chat completion with a session header) runs against nginx and each router in turn,
# ROUNDS rounds of DURATION each, and the medians of requests/s, p50 and p99 are printed with each
# router's ratio to nginx, and `uptime` before and after. Several jars (before=old.jar after=new.jar)
# are measured side by side in the same run, alternating, so machine load hits them alike.
# Environment: ROUNDS (3), DURATION (10s), WARMUP (10s per target), CONNECTIONS (32), THREADS (2),
# NGINX_WORKERS (2, one per core here), KEEP (set: keep the temporary directory with logs).
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
NGINX_WORKERS=${NGINX_WORKERS:-2}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LUA="$ROOT/bench/scripts/wrk-chat.lua"
SIM_JAR="$ROOT/sim/target/lmw-sim.jar"
if [ $# -eq 0 ]; then
  set -- "router=$ROOT/router/target/lmw-router.jar"
fi
for spec in "$@"; do
  [ -f "${spec#*=}" ] || { echo "no such jar: ${spec#*=} (build with: mvn -B -q -DskipTests -pl router,sim -am package)" >&2; exit 2; }
done
[ -f "$SIM_JAR" ] || { echo "no $SIM_JAR (build with: mvn -B -q -DskipTests -pl router,sim -am package)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/nginx-ratio.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

free_port() {
  local p
  while :; do
    p=$(( 20000 + RANDOM % 20000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

wait_http() { # url: until it answers, at most 60 s
  for _ in $(seq 1 600); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "nothing answered at $1" >&2
  return 1
}

SIM_PORT=$(free_port)
java -XX:+ExitOnOutOfMemoryError -jar "$SIM_JAR" --replicas 1 --port "$SIM_PORT" --profile tiny --time-scale 1000 \
  > "$WORK/sim.out" 2> "$WORK/sim.err" &
PIDS+=($!)
wait_http "http://127.0.0.1:$SIM_PORT/health"

NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes $NGINX_WORKERS;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
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

NAMES=(nginx)
URLS=("http://127.0.0.1:$NGINX_PORT/v1/chat/completions")
for spec in "$@"; do
  name=${spec%%=*}
  jar=${spec#*=}
  port=$(free_port)
  # The request log (one line per request) goes where a pod's stderr would: a file.
  java -XX:+ExitOnOutOfMemoryError -jar "$jar" --replicas "sim-0=http://127.0.0.1:$SIM_PORT" --host 127.0.0.1 --port "$port" \
    > "$WORK/$name.out" 2> "$WORK/$name.err" &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$port/readyz"
  NAMES+=("$name")
  URLS+=("http://127.0.0.1:$port/v1/chat/completions")
done

# One wrk run; prints "rps p50_ms p99_ms non2xx".
run_wrk() {
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1" --latency -s "$LUA" "$2")
  echo "$out" >> "$WORK/wrk.log"
  awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /Requests\/sec:/ { rps = $2 }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    /Non-2xx or 3xx responses:/ { bad = $5 }
    END { printf "%.0f %.3f %.3f %d\n", rps, p50, p99, bad }' <<< "$out"
}

echo "uptime before: $(uptime)"
echo "targets: ${NAMES[*]}; wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS rounds alternating; warm-up $WARMUP each"
# A sanity check that each answers 200 through the script's request.
for i in "${!NAMES[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H 'X-Session-Id: wrk-ratio-session' \
    -d '{"model":"Qwen/Qwen3-4B-Instruct-2507","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' "${URLS[$i]}")
  [ "$code" = 200 ] || { echo "${NAMES[$i]} answered $code" >&2; exit 1; }
  run_wrk "$WARMUP" "${URLS[$i]}" > /dev/null
done

declare -A RPS P50 P99 BAD
for round in $(seq 1 "$ROUNDS"); do
  order=("${!NAMES[@]}")
  if (( round % 2 == 0 )); then # every other round in reverse, so no target always follows the same one
    order=($(printf '%s\n' "${order[@]}" | tac))
  fi
  for i in "${order[@]}"; do
    read -r rps p50 p99 bad < <(run_wrk "$DURATION" "${URLS[$i]}")
    n=${NAMES[$i]}
    RPS[$n]+="$rps "; P50[$n]+="$p50 "; P99[$n]+="$p99 "; BAD[$n]=$(( ${BAD[$n]:-0} + bad ))
    printf 'round %d  %-8s %8s req/s  p50 %7s ms  p99 %7s ms  non-2xx %s   load %s\n' "$round" "$n" "$rps" "$p50" "$p99" "$bad" \
      "$(cut -d' ' -f1-3 /proc/loadavg)"
  done
done

median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
printf '%-8s %10s %10s %10s %8s %9s\n' target "req/s" "p50 ms" "p99 ms" non-2xx "× nginx"
base=$(median "${RPS[nginx]}")
for n in "${NAMES[@]}"; do
  r=$(median "${RPS[$n]}")
  printf '%-8s %10s %10s %10s %8s %9s\n' "$n" "$r" "$(median "${P50[$n]}")" "$(median "${P99[$n]}")" "${BAD[$n]}" \
    "$(awk -v a="$r" -v b="$base" 'BEGIN { printf "%.2f", a / b }')"
done
echo "medians of $ROUNDS rounds"
echo "uptime after: $(uptime)"
