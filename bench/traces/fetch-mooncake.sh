#!/bin/sh
# Downloads the whole public Mooncake FAST'25 conversation trace (12,031 requests over one hour, 3.0 MB) next to this
# script and checks it is the file the bench was tested with. Apache-2.0, (c) the Mooncake authors (kvcache-ai/Mooncake).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
commit=3b5a594133958449a1feaf1c9e0fc1b553e34a28
url="https://raw.githubusercontent.com/kvcache-ai/Mooncake/${commit}/FAST25-release/traces/conversation_trace.jsonl"
out="$here/mooncake-conversation.jsonl"
curl -fsSL -o "$out" "$url"
echo "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df  $out" | sha256sum -c -
