# preStop of a vLLM replica pod (LM Warden operator): return once the engine has no request running or waiting,
# or at the deadline. The routers stop sending to a terminating endpoint; first give them time to see it.
import argparse
import time
import urllib.error
import urllib.request

p = argparse.ArgumentParser()
p.add_argument("--metrics-url", required=True)
p.add_argument("--settle-seconds", type=float, required=True)
p.add_argument("--quiet-reads", type=int, required=True)
p.add_argument("--interval-seconds", type=float, required=True)
p.add_argument("--deadline-seconds", type=float, required=True)
a = p.parse_args()
end = time.monotonic() + a.deadline_seconds
names = ("vllm:num_requests_running", "vllm:num_requests_waiting")


def requests_in_engine():
    """Running + waiting over every engine (series of each name, one per engine label)."""
    with urllib.request.urlopen(a.metrics_url, timeout=5) as r:
        text = r.read().decode("utf-8", "replace")
    total = 0.0
    for line in text.splitlines():
        for name in names:
            if line.startswith(name) and line[len(name):len(name) + 1] in ("{", " "):
                rest = line.rsplit("}", 1)[1] if line[len(name)] == "{" else line[len(name):]
                total += float(rest.split()[0])
    return total


time.sleep(max(0.0, min(a.settle_seconds, end - time.monotonic())))
quiet = 0
while time.monotonic() < end:
    try:
        quiet = quiet + 1 if requests_in_engine() == 0 else 0
    except urllib.error.URLError as e:
        if isinstance(e.reason, ConnectionRefusedError):
            break  # nothing listens: no request can be in flight
        quiet = 0
    except (OSError, ValueError, IndexError):
        quiet = 0
    if quiet >= a.quiet_reads:
        break
    time.sleep(max(0.0, min(a.interval_seconds, end - time.monotonic())))
