#!/usr/bin/env bash
# The token-server part of `make bench`: wrk -t2 -c50 for 10 s against POST /fetch_rtc_token on three servers,
# one after the other, each alone on the machine and on 127.0.0.1 only:
#   - ours: a release build of `tokencall serve --quiet`;
#   - Python: Benchmarks/ServerBench/reference_server.py, Agora's official builder (PyPI agoraiotools) behind
#     http.server.ThreadingHTTPServer with Nagle's algorithm off;
#   - nginx: one fixed answer of the same shape and size, no token work (the cost of HTTP alone).
# Records requests/s, p99 latency, errors and peak RSS of each, merges our figures into .build/bench/results.json,
# prints a table, and exits 3 when a target is missed (after recording), 1 when the run fails. Every server it starts is stopped on exit.
#
#   Scripts/bench-server.sh                      # what `make bench` runs
#   BENCH_SERVER_SECONDS=3 Scripts/bench-server.sh   # a quicker look (the recorded figures use 10)
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh
work="$bench_dir/server"
body='{"uid": 42, "channelName": "bench", "role": 1}'

# Targets: ours / Python and ours / nginx in requests/s; p99 in ms; errors; peak RSS in MB.
target_vs_python=10
target_vs_nginx=0.6
target_p99_ms=5
target_rss_mb=50

say() { echo "== $*" >&2; }
die() { echo "bench-server: $*" >&2; exit 1; }

token_load_settings BENCH_SERVER_SECONDS

# MARK: Tools

find_wrk_and_nginx

ensure_reference
python="$venv/bin/python"

# One run at a time: two at once would share the cores (and this directory) and spoil each other's figures.
mkdir -p "$bench_dir"
if command -v flock >/dev/null; then
    exec 9>"$bench_dir/server.lock"
    if ! flock -n 9; then
        say "another bench-server run is under way; waiting for it (at most 10 minutes)"
        flock -w 600 9 || die "the other bench-server run still holds $bench_dir/server.lock after 10 minutes"
    fi
fi

say "building tokencall (release)"
swift build -c release --product tokencall >&2
tokencall=.build/release/tokencall

rm -rf "$work"
mkdir -p "$work"

# MARK: Servers

stop_servers_on_exit

# Posts the benchmark's body once; prints the answer when it is 200 with {"token": "007...", "expiresIn": 3600}.
probe() {
    "$python" - "$1" "$body" <<'EOF'
import json, sys, urllib.request
request = urllib.request.Request("http://127.0.0.1:%s/fetch_rtc_token" % sys.argv[1], data=sys.argv[2].encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
try:
    with urllib.request.urlopen(request, timeout=2) as response:
        answer = json.loads(response.read())
except Exception:
    sys.exit(1)
ok = (isinstance(answer, dict) and sorted(answer) == ["expiresIn", "token"] and answer["expiresIn"] == 3600
      and isinstance(answer["token"], str) and answer["token"].startswith("007"))
print(answer["token"] if ok else "")
sys.exit(0 if ok else 2)
EOF
}

# Waits (at most 10 s) until the server of PID answers on PORT, and checks that its token is one for the request
# (nginx's fixed one is too: it comes from the official builder).
wait_ready() {
    local name=$1 pid=$2 port=$3 token status
    for _ in $(seq 100); do
        running "$pid" || die "$name exited before answering; its output is in $work/$name.log"
        status=0
        token=$(probe "$port") || status=$?
        if [ "$status" -eq 0 ]; then
            if ! "$tokencall" token inspect "$token" --channel bench --uid 42 >/dev/null; then
                die "$name answered with a token that does not verify for channel bench, uid 42: $token"
            fi
            return 0
        fi
        [ "$status" -eq 2 ] && die "$name answered, but not with {\"token\": \"007...\", \"expiresIn\": 3600}"
        sleep 0.1
    done
    die "$name did not answer POST /fetch_rtc_token on 127.0.0.1:$port within 10 s; see $work/$name.log"
}


# Clock ticks all cores have been busy so far: everything but idle and iowait. Interrupt time counts too: with
# tick-based accounting a tick in a softirq (where loopback traffic is handled) is also charged to the process
# it interrupted, so the server's and wrk's share of it is taken off again below.
machine_busy_ticks() {
    awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# Runs wrk against server PID on PORT: a warm-up, then the measured run. Prints the measured run's BENCH line with
# the CPU the server, wrk and everything else on the machine used during it, in clock ticks.
load() {
    local name=$1 pid=$2 port=$3 line server_before busy_before wrk_cpu server_ticks busy_ticks
    timeout -k 5 $((warmup_seconds + 30)) wrk -t$threads -c$connections -d${warmup_seconds}s -s "$lua" \
        "http://127.0.0.1:$port/" >"$work/$name.warmup.txt" 2>&1 || die "wrk's warm-up against $name failed; see $work/$name.warmup.txt"
    server_before=$(cpu_ticks "$pid")
    busy_before=$(machine_busy_ticks)
    {
        TIMEFORMAT='%3U %3S'
        time timeout -k 5 $((seconds + 60)) wrk -t$threads -c$connections -d${seconds}s --latency -s "$lua" \
            "http://127.0.0.1:$port/" >"$work/$name.wrk.txt" 2>&1
    } 2>"$work/$name.wrk-cpu.txt" || die "wrk against $name failed; see $work/$name.wrk.txt"
    server_ticks=$(( $(cpu_ticks "$pid") - server_before ))
    busy_ticks=$(( $(machine_busy_ticks) - busy_before ))
    wrk_cpu=$(awk -v hz="$clock_ticks" '{ printf "%d", ($1 + $2) * hz + 0.5 }' "$work/$name.wrk-cpu.txt")
    line=$(grep '^BENCH ' "$work/$name.wrk.txt") || die "wrk printed no BENCH line for $name; see $work/$name.wrk.txt"
    echo "$line server_ticks=$server_ticks wrk_ticks=$wrk_cpu busy_ticks=$busy_ticks"
}

# Runs one server from start to stop; appends "name BENCH-fields ... rss_kb=N" to $work/figures.
bench() {
    local name=$1 port=$2 pid line rss
    shift 2
    say "$name: $*"
    "$@" >"$work/$name.log" 2>&1 9>&- &
    pid=$!
    pids+=("$pid")
    wait_ready "$name" "$pid" "$port"
    say "$name: wrk -t$threads -c$connections -d${seconds}s POST /fetch_rtc_token (after a ${warmup_seconds} s warm-up)"
    line=$(load "$name" "$pid" "$port")
    rss=$(peak_rss_kb "$pid")
    stop_server "$pid"
    echo "$name ${line#BENCH } rss_kb=$rss" >>"$work/figures"
}

clock_ticks=$(getconf CLK_TCK)
cores=$(getconf _NPROCESSORS_ONLN)

port=$(free_port)
bench ours "$port" "$tokencall" serve --host 127.0.0.1 --port "$port" --quiet

port=$(free_port)
bench python "$port" "$python" Benchmarks/ServerBench/reference_server.py "$port"

# nginx answers with a real token of the official builder, made once, so its body is a real answer's size.
fixed_token=$("$python" -c '
import os
from agoraiotools.RtcTokenBuilder2 import Role_Publisher, RtcTokenBuilder
print(RtcTokenBuilder.build_token_with_uid(os.environ["APP_ID"], os.environ["APP_CERTIFICATE"], "bench", 42, Role_Publisher, 3600, 3600))')
port=$(free_port)
prefix="$PWD/$work/nginx"
mkdir -p "$prefix"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@PORT@|$port|g" -e "s|@BODY@|{\"expiresIn\":3600,\"token\":\"$fixed_token\"}|g" \
    Benchmarks/ServerBench/nginx.conf.in >"$prefix/nginx.conf"
"$nginx_bin" -t -q -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" >"$work/nginx.log" 2>&1 \
    || die "nginx refused its configuration; see $work/nginx.log"
bench nginx "$port" "$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log"

# MARK: Figures

status=0
"$python" - "$work/figures" "$results" "$seconds" "$target_vs_python" "$target_vs_nginx" "$target_p99_ms" "$target_rss_mb" \
    "$clock_ticks" "$cores" <<'EOF' || status=$?
import json, os, sys

figures_path, results_path, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
target_vs_python, target_vs_nginx, target_p99, target_rss = map(float, sys.argv[4:8])
clock_ticks, cores = int(sys.argv[8]), int(sys.argv[9])

servers = {}
with open(figures_path) as lines:
    for line in lines:
        name, *fields = line.split()
        values = {key: int(value) for key, value in (field.split("=", 1) for field in fields)}
        run_ticks = values["duration_us"] / 1e6 * clock_ticks
        servers[name] = {
            "rps": values["requests"] / (values["duration_us"] / 1e6),
            "p50_ms": values["p50_us"] / 1000,
            "p99_ms": values["p99_us"] / 1000,
            "requests": values["requests"],
            "socket_errors": sum(values[key] for key in ("connect", "read", "write", "timeout")),
            "non_2xx": values["status"] + values["other"],
            "rss_mb": values["rss_kb"] / 1024,
            # CPU per answer, and the share of all cores that other processes took during the run.
            "cpu_us": values["server_ticks"] / clock_ticks * 1e6 / max(values["requests"], 1),
            "other": max(0, values["busy_ticks"] - values["server_ticks"] - values["wrk_ticks"]) / (run_ticks * cores),
        }
for server in servers.values():
    server["errors"] = server["socket_errors"] + server["non_2xx"]
ours, python, nginx = servers["ours"], servers["python"], servers["nginx"]

labels = {
    "ours": "tokencall serve (release)",
    "python": "Python: agoraiotools + ThreadingHTTPServer",
    "nginx": "nginx, fixed body",
}
print(f"token server: wrk -t2 -c50 -d{seconds}s, POST /fetch_rtc_token on 127.0.0.1")
print(f"{'server':<44}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'peak RSS MB':>13}{'CPU µs/req':>12}{'others':>8}")
for name in ("ours", "python", "nginx"):
    server = servers[name]
    print(f"{labels[name]:<44}{server['rps']:>10.1f}{server['p50_ms']:>9.2f}{server['p99_ms']:>9.2f}"
          f"{server['errors']:>8}{server['rss_mb']:>13.1f}{server['cpu_us']:>12.1f}{server['other']:>8.0%}")
    if server["errors"]:
        print(f"{'':<44}  ({server['socket_errors']} socket errors, {server['non_2xx']} non-2xx answers)")
print(f"CPU µs/req: the server's CPU time per answer. others: the share of all {cores} cores that processes other than")
print("the server and wrk took during the run; above a few % they slow every figure down.")
busiest = max(servers, key=lambda name: servers[name]["other"])
if servers[busiest]["other"] > 0.10:
    print(f"warning: other processes took {servers[busiest]['other']:.0%} of the cores during the {busiest} run; "
          "the figures are not comparable. Run again on an idle machine.")
print()

# Each entry: value (ours), unit, reference, ratio; and whether the target is met.
entries = [
    # Higher is better: ratio = value / reference.
    ("server_rps_vs_python", ours["rps"], "req/s", python["rps"], ours["rps"] / python["rps"], target_vs_python, f">= {target_vs_python:g}x"),
    ("server_rps_vs_nginx", ours["rps"], "req/s", nginx["rps"], ours["rps"] / nginx["rps"], target_vs_nginx, f">= {target_vs_nginx:g}x"),
    # Lower is better: ratio = reference / value, so 1 or more meets the target, as for the ns/op entries.
    ("server_p99_ms", ours["p99_ms"], "ms", target_p99, target_p99 / max(ours["p99_ms"], 1e-3), 1, f"< {target_p99:g} ms"),
    ("server_peak_rss_mb", ours["rss_mb"], "MB", target_rss, target_rss / max(ours["rss_mb"], 1e-3), 1, f"< {target_rss:g} MB"),
    # Errors out of the requests made: ratio = value / reference, the error rate; the target is none.
    ("server_errors", ours["errors"], "errors", ours["requests"], ours["errors"] / max(ours["requests"], 1), None, "0"),
    # For information, no target: CPU time per answer, ours and Python's; ratio = reference / value, how many times
    # less CPU we spend per answer. It moves much less than requests/s when other work shares the cores.
    ("server_cpu_us_per_req", ours["cpu_us"], "µs", python["cpu_us"], python["cpu_us"] / max(ours["cpu_us"], 1e-3), None, "-"),
]

def met(name, value, ratio, target):
    if name == "server_cpu_us_per_req":
        return True
    if name == "server_errors":
        return value == 0
    if name in ("server_p99_ms", "server_peak_rss_mb"):
        return ratio > target
    return ratio >= target

print(f"{'name':<22}{'ours':>12}{'reference':>12}{'ratio':>10}{'target':>12}{'ok':>5}  unit")
missed = []
for name, value, unit, reference, ratio, target, shown in entries:
    ok = met(name, value, ratio, target)
    if not ok:
        missed.append(name)
    verdict = "-" if target is None and name != "server_errors" else ("yes" if ok else "NO")
    print(f"{name:<22}{value:>12.2f}{reference:>12.2f}{ratio:>10.4g}{shown:>12}{verdict:>5}  {unit}")

sys.path.insert(0, "Benchmarks")
from bench_results import merge

merge(results_path, {name: {"value": round(value, 2), "unit": unit, "reference": round(reference, 2),
                            "ratio": round(ratio, 4), "target": shown, "met": name not in missed}
                     for name, value, unit, reference, ratio, _, shown in entries}, "bench-server")

if missed:
    print(f"bench-server: missed target: {', '.join(missed)}", file=sys.stderr)
    sys.exit(3)
EOF
echo "results: $results; wrk output and server logs: $work" >&2
exit "$status"
