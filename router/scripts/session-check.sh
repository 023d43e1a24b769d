#!/usr/bin/env bash
# Sends SESSIONS concurrent agent-style sessions of STEPS steps each through a running router, all naming MODEL, and
# prints where every step went and why (X-LMW-Replica, X-LMW-Decision), the decision counts, and how many sessions
# moved (had steps on more than one replica). Exit status 1 when any session moved or any step failed.
#
#   router/scripts/session-check.sh http://127.0.0.1:8000 claude-sonnet-5-5 [SESSIONS=6] [STEPS=4]
#
# Each session is an Anthropic Messages conversation that grows like Claude Code's: a system prompt shared by all
# sessions, a first user turn of its own, then per step the reply and a new user turn. Needs curl and jq. Traffic goes
# only where URL points; every loop is bounded.
set -euo pipefail

url=${1:?usage: session-check.sh URL MODEL [SESSIONS] [STEPS]}
model=${2:?usage: session-check.sh URL MODEL [SESSIONS] [STEPS]}
sessions=${3:-6}
steps=${4:-4}
run=$(date +%s%N)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

system=$(for i in $(seq 1 60); do printf 'Rule %d: read the code before changing it, keep changes small, run the tests. ' "$i"; done)

one_session() {
  local s=$1 id="check-$run-$s" messages step headers body reply replica decision status
  messages=$(jq -n --arg t "session $s of run $run: $(for i in $(seq 1 40); do printf 'fix test %d in module %d; ' "$i" "$s"; done)" \
    '[{role: "user", content: $t}]')
  for step in $(seq 1 "$steps"); do
    body=$(jq -n --arg m "$model" --arg sys "$system" --argjson msgs "$messages" \
      '{model: $m, max_tokens: 32, system: $sys, messages: $msgs}')
    headers="$work/$s.$step.h"
    reply=$(curl -s -o - -D "$headers" --max-time 120 "$url/v1/messages" -H 'content-type: application/json' \
      -H 'anthropic-version: 2023-06-01' -H "X-Claude-Code-Session-Id: $id" --data-binary "$body") || reply=''
    status=$(awk 'NR==1 {print $2}' "$headers" 2>/dev/null || echo 0)
    replica=$(awk 'tolower($1)=="x-lmw-replica:" {print $2}' "$headers" | tr -d '\r')
    decision=$(awk 'tolower($1)=="x-lmw-decision:" {print $2}' "$headers" | tr -d '\r')
    echo "$s $step ${status:-0} ${replica:--} ${decision:--}" >> "$work/steps"
    [ "$status" = "200" ] || return 0
    messages=$(jq --arg r "$(jq -r '.content[0].text // ""' <<< "$reply")" --arg u "step $((step + 1)): go on with the next test" \
      '. + [{role: "assistant", content: $r}, {role: "user", content: $u}]' <<< "$messages")
  done
}

for s in $(seq 1 "$sessions"); do one_session "$s" & done
wait

sort -k1,1n -k2,2n "$work/steps" | awk -v model="$model" -v sessions="$sessions" -v steps="$steps" '
  { key = $1; where[key] = where[key] " " $4 "/" $5; if ($3 != 200) failed++
    if (!(key SUBSEP $4 in seen)) { seen[key SUBSEP $4] = 1; replicas[key]++ }
    count[$5]++ }
  END {
    for (k = 1; k <= sessions; k++) { printf "session %d:%s\n", k, where[k]; if (replicas[k] > 1) moved++ }
    printf "model %s: %d sessions x %d steps; decisions:", model, sessions, steps
    for (d in count) printf " %s=%d", d, count[d]
    printf "; sessions moved: %d; failed steps: %d\n", moved + 0, failed + 0
    exit (moved + failed > 0) ? 1 : 0 }'
