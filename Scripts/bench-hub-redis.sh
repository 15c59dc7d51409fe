#!/usr/bin/env bash
# The hub-with-Redis part of `make bench` (issue 33): a release build of `tokencall serve --redis` whose Redis (a
# redis-server of its own on 127.0.0.1) is 100 ms away each way behind a delaying proxy, then 150 clients join a new
# channel each at once — every claim a round trip to that Redis — while a member already in a channel pings the hub
# every 20 ms (Benchmarks/hub_redis_probe.py, standard-library Python). Records the ping p99 (target < 100 ms: the
# hub's thread never waits for Redis), its max, and how many joiners got in (all 150) in .build/bench/results.json.
# No reference exists for this, so the entries carry a value and a unit and no ratio. Exit 3 when a target is missed.
#
#   Scripts/bench-hub-redis.sh
#   BENCH_HUB_BINARY=.build/debug/tokencall Scripts/bench-hub-redis.sh   # the smoke test: figures recorded, not judged
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh
work="$bench_dir/hub-redis"
joiners=150
seconds=4
delay_ms=100
export APP_ID=970CA35de60c44645bbae8a215061b33
export APP_CERTIFICATE=5CFd2fd1755d40ecb72977518be15d3b

say() { echo "== $*" >&2; }
die() { echo "bench-hub-redis: $*" >&2; exit 1; }

if [ -n "${BENCH_HUB_BINARY:-}" ]; then
    tokencall=$BENCH_HUB_BINARY
else
    say "building tokencall (release)"
    swift build -c release --product tokencall >&2
    tokencall=.build/release/tokencall
fi
command -v redis-server >/dev/null || install_with_apt redis-server

rm -rf "$work"
mkdir -p "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do stop_server "$pid"; done; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)
proxy_port=$(free_port)
python3 Benchmarks/hub_redis_probe.py proxy "$proxy_port" "$redis_port" "$delay_ms" >"$work/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    grep -q ready "$work/proxy.log" 2>/dev/null && redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.1
done
grep -q ready "$work/proxy.log" || die "the delaying proxy did not start; see $work/proxy.log"

say "hub: tokencall serve --redis, Redis ${delay_ms} ms away each way"
"$tokencall" serve --port 0 --quiet --redis "redis://127.0.0.1:$proxy_port" --advertise "ws://127.0.0.1:1/hub" \
    --max-connections 400 --max-connections-per-address 400 2>"$work/serve.log" &
server=$!
pids+=("$server")
port=$(serve_port "$server" "$work/serve.log")

say "probe: $joiners joins to new channels while a member pings for $seconds s"
timeout -k 5 $((seconds + 60)) python3 Benchmarks/hub_redis_probe.py probe "$port" "$joiners" "$seconds" \
    >"$work/probe.json" 2>"$work/probe.err" || die "the probe failed; see $work/probe.err and $work/serve.log"

status=0
python3 - "$work/probe.json" "$results" "$([ -z "${BENCH_HUB_BINARY:-}" ] && echo release || echo other)" <<'PY' || status=$?
import json, sys
sys.path.insert(0, "Benchmarks")
from bench_results import merge

probe_path, results_path, build = sys.argv[1:4]
with open(probe_path) as file:
    probe = json.load(file)
judged = build == "release"
figures = [
    ("hub_redis_far_ping_p99_ms", probe["p99Ms"], f"ms over {probe['pings']} pings, Redis 100 ms away, "
     f"{probe['joiners']} new-channel joins at once", "< 100", probe["p99Ms"] < 100),
    ("hub_redis_far_ping_max_ms", probe["maxMs"], "ms", None, None),
    ("hub_redis_far_joined", probe["joined"], f"of {probe['joiners']} joiners let in", f"= {probe['joiners']}",
     probe["joined"] == probe["joiners"]),
]
rows, missed = {}, []
print()
print(f"{'name':<28}{'value':>10}{'target':>8}{'ok':>5}  unit")
for name, value, unit, target, met in figures:
    row = {"value": value, "unit": unit}
    verdict = "-"
    if target:
        row["target"] = target
        row["met"] = met if judged else None
        verdict = "yes" if row["met"] else "NO" if row["met"] is False else "n/a"
        if row["met"] is False:
            missed.append(name)
    rows[name] = row
    print(f"{name:<28}{value:>10}{target or '':>8}{verdict:>5}  {unit}")
merge(results_path, rows, "bench-hub-redis")
sys.exit(3 if missed else 0)
PY
exit "$status"
