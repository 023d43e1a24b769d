# Shared by the scripts here: free loopback ports, waiting for HTTP, the simulated replica and wrk.
# Sourced, not run. Expects ROOT (the repository root) and WORK (a temporary directory) to be set.

SIM_JAR=${SIM_JAR:-$ROOT/sim/target/lmw-sim.jar}
LUA="$ROOT/bench/scripts/wrk-chat.lua"
PIDS=()

need_jar() { # path: exits 2 with the build command when it is missing
  [ -f "$1" ] || { echo "no such jar: $1 (build with: mvn -B -q -DskipTests -pl router,sim,bench -am package)" >&2; exit 2; }
}

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

# One simulated replica whose engine time is negligible (profile tiny at time scale 1000); sets SIM_PORT.
start_sim() {
  need_jar "$SIM_JAR"
  SIM_PORT=$(free_port)
  java -XX:+ExitOnOutOfMemoryError -jar "$SIM_JAR" --replicas 1 --port "$SIM_PORT" --profile tiny --time-scale 1000 \
    > "$WORK/sim.out" 2> "$WORK/sim.err" &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$SIM_PORT/health"
}

# start_router NAME JAR [JVM options...]: a router in front of the replica, on 127.0.0.1; sets ROUTER_PORT and ROUTER_PID.
# Its request log (a line per request on stderr) goes to a file, as a pod's stderr would. ROUTER_ARGS: more router
# flags, e.g. "--health-timeout 5s" on a machine so loaded that the default 1 s health check fails.
start_router() {
  local name=$1 jar=$2
  shift 2
  need_jar "$jar"
  ROUTER_PORT=$(free_port)
  java -XX:+ExitOnOutOfMemoryError "$@" -jar "$jar" --replicas "sim-0=http://127.0.0.1:$SIM_PORT" --host 127.0.0.1 \
    --port "$ROUTER_PORT" ${ROUTER_ARGS:-} > "$WORK/$name.out" 2> "$WORK/$name.err" &
  ROUTER_PID=$!
  PIDS+=($!)
  wait_http "http://127.0.0.1:$ROUTER_PORT/readyz"
}

stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}

# CPU time (user + system, clock ticks) the processes have used so far.
cpu_ticks() {
  local t=0 p
  for p in "$@"; do
    t=$(( t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0) ))
  done
  echo "$t"
}

# run_wrk DURATION URL [PID...]: one wrk run (its output appended to $WORK/wrk.log); prints
# "rps p50_ms p99_ms non2xx cpu_us_per_request", the last being the CPU the given processes (the proxy) used
# per completed request: unlike requests/s it does not depend on how much of the machine others leave free.
run_wrk() {
  local out t0 t1 url=$2 duration=$1
  shift 2
  t0=$(cpu_ticks "$@")
  out=$(wrk -t"${THREADS:-2}" -c"${CONNECTIONS:-32}" -d"$duration" --latency -s "$LUA" "$url")
  t1=$(cpu_ticks "$@")
  echo "$out" >> "$WORK/wrk.log"
  awk -v ticks=$(( t1 - t0 )) -v hz="$(getconf CLK_TCK)" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /Requests\/sec:/ { rps = $2 }
    / requests in / { n = $1 }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    /Non-2xx or 3xx responses:/ { bad = $5 }
    END { printf "%.0f %.3f %.3f %d %.0f\n", rps, p50, p99, bad, (n > 0 ? ticks * 1e6 / hz / n : 0) }' <<< "$out"
}
