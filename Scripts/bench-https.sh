#!/usr/bin/env bash
# The https part of the token-server benchmark: `tokencall serve --tls-cert/--tls-key` beside nginx with the same
# certificate and key (a test CA's P-256 leaf for 127.0.0.1, made here), wrk -t2 -c50 against POST /fetch_rtc_token,
# once on kept-alive connections and once with `Connection: close` (a full handshake per request). nginx answers one
# fixed body of a real answer's size. Records serve_https_rps_vs_nginx and serve_https_close_rps_vs_nginx (target
# >= 0.5x each, issue 21) and our p99s in .build/bench/results.json, prints a table, exits 3 when a target is
# missed (after recording), 1 when the run fails. Every server it starts is stopped on exit.
#
#   Scripts/bench-https.sh                               # what `make bench` runs
#   BENCH_HTTPS_SECONDS=1 TOKENCALL=.build/debug/tokencall Scripts/bench-https.sh   # a smoke run of the script
#                                                        # itself (figures of a debug build mean nothing)
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh
work="$bench_dir/https"
target_vs_nginx=0.5

say() { echo "== $*" >&2; }
die() { echo "bench-https: $*" >&2; exit 1; }

token_load_settings BENCH_HTTPS_SECONDS
for tool in openssl python3; do
    command -v "$tool" >/dev/null || die "needs $tool (Scripts/deps.sh installs them)"
done
find_wrk_and_nginx

if [ -n "${TOKENCALL:-}" ]; then
    tokencall=$TOKENCALL
else
    say "building tokencall (release)"
    swift build -c release --product tokencall >&2
    tokencall=.build/release/tokencall
fi

rm -rf "$work"
mkdir -p "$work"
key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${key[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=TokenCall Bench CA" 2>/dev/null
openssl req "${key[@]}" -keyout "$work/leaf.key" -out "$work/leaf.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$work/leaf.ext"
openssl x509 -req -in "$work/leaf.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -set_serial 1 -days 2 \
    -extfile "$work/leaf.ext" -out "$work/leaf.pem" 2>/dev/null

stop_servers_on_exit

# POSTs the benchmark's body over https, trusting the bench CA; prints the answer's body when it is 200.
probe() {
    python3 - "$1" "$work/ca.pem" <<'PY'
import ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[2])
request = urllib.request.Request("https://127.0.0.1:%s/fetch_rtc_token" % sys.argv[1],
                                 data=b'{"uid": 42, "channelName": "bench", "role": 1}',
                                 headers={"Content-Type": "application/json"}, method="POST")
try:
    with urllib.request.urlopen(request, timeout=2, context=context) as response:
        sys.stdout.write(response.read().decode())
except Exception:
    sys.exit(1)
PY
}

wait_ready() {
    local name=$1 pid=$2 port=$3
    for _ in $(seq 100); do
        running "$pid" || die "$name exited before answering; see $work/$name.log"
        probe "$port" >"$work/$name.answer" && return 0
        sleep 0.1
    done
    die "$name did not answer https://127.0.0.1:$port/fetch_rtc_token within 10 s; see $work/$name.log"
}

# wrk against PORT (after a warm-up) with any extra wrk arguments; appends "name BENCH-fields" to $work/figures.
load() {
    local name=$1 port=$2
    shift 2
    timeout -k 5 $((warmup_seconds + 30)) wrk -t$threads -c$connections -d${warmup_seconds}s -s "$lua" "$@" \
        "https://127.0.0.1:$port/" >"$work/$name.warmup.txt" 2>&1 || die "wrk's warm-up against $name failed; see $work/$name.warmup.txt"
    timeout -k 5 $((seconds + 60)) wrk -t$threads -c$connections -d${seconds}s --latency -s "$lua" "$@" \
        "https://127.0.0.1:$port/" >"$work/$name.wrk.txt" 2>&1 || die "wrk against $name failed; see $work/$name.wrk.txt"
    local line
    line=$(grep '^BENCH ' "$work/$name.wrk.txt") || die "wrk printed no BENCH line for $name; see $work/$name.wrk.txt"
    echo "$name ${line#BENCH }" >>"$work/figures"
}

# Starts a server, waits for it, loads it kept alive and then closing, stops it.
bench() {
    local name=$1 port=$2 pid
    shift 2
    say "$name: $*"
    "$@" >"$work/$name.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_ready "$name" "$pid" "$port"
    say "$name: wrk -t$threads -c$connections -d${seconds}s, kept alive, then with Connection: close"
    load "$name" "$port"
    load "$name-close" "$port" -H "Connection: close"
    stop_server "$pid"
}

port=$(free_port)
# wrk's 50 connections come from one address: with Connection: close the ones closing still count for a moment while
# their replacements arrive, which the default 64 per address would refuse; nginx has no such limit.
bench ours "$port" "$tokencall" serve --host 127.0.0.1 --port "$port" --quiet --max-connections-per-address 256 \
    --tls-cert "$work/leaf.pem" --tls-key "$work/leaf.key"

# nginx's fixed body is the answer ours just gave: a real token, a real answer's size.
body=$(cat "$work/ours.answer")
port=$(free_port)
prefix="$PWD/$work/nginx"
mkdir -p "$prefix"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@PORT@|$port|g" -e "s|@CERT@|$PWD/$work/leaf.pem|g" -e "s|@KEY@|$PWD/$work/leaf.key|g" \
    -e "s|@BODY@|$body|g" Benchmarks/ServerBench/nginx-tls.conf.in >"$prefix/nginx.conf"
"$nginx_bin" -t -q -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" >"$work/nginx.log" 2>&1 \
    || die "nginx refused its configuration; see $work/nginx.log"
bench nginx "$port" "$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log"

status=0
python3 - "$work/figures" "$results" "$seconds" "$target_vs_nginx" <<'PY' || status=$?
import sys
figures_path, results_path, seconds, target = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
runs = {}
for line in open(figures_path):
    name, *fields = line.split()
    values = {key: int(value) for key, value in (field.split("=") for field in fields)}
    errors = sum(values[key] for key in ("connect", "read", "write", "timeout", "status", "other"))
    runs[name] = {"rps": values["requests"] / (values["duration_us"] / 1e6), "p99_ms": values["p99_us"] / 1000,
                  "errors": errors, "requests": values["requests"]}
print(f"https token server: wrk -t2 -c50 -d{seconds}s, POST /fetch_rtc_token on 127.0.0.1, the same certificate")
for name, run in runs.items():
    print(f"  {name:<12} {run['rps']:>10.0f} req/s  p99 {run['p99_ms']:>7.2f} ms  errors {run['errors']}")
entries = [
    ("serve_https_rps_vs_nginx", runs["ours"]["rps"], "req/s", runs["nginx"]["rps"], target),
    ("serve_https_close_rps_vs_nginx", runs["ours-close"]["rps"], "req/s", runs["nginx-close"]["rps"], target),
]
rows, missed = {}, []
for name, value, unit, reference, goal in entries:
    ratio = value / reference if reference else 0
    met = ratio >= goal
    if not met:
        missed.append(name)
    rows[name] = {"value": round(value, 2), "unit": unit, "reference": round(reference, 2), "ratio": round(ratio, 4),
                  "target": f">= {goal:g}x", "met": met}
    print(f"{name:<32}{value:>10.0f}{reference:>10.0f}{ratio:>8.3f}  >= {goal:g}x  {'yes' if met else 'NO'}")
for name in ("ours", "ours-close"):
    key = "serve_https_p99" if name == "ours" else "serve_https_close_p99"
    rows[key] = {"value": round(runs[name]["p99_ms"], 3), "unit": "ms", "reference": None, "ratio": None, "target": None, "met": True}
    rows[key.replace("p99", "errors")] = {"value": runs[name]["errors"], "unit": "errors", "reference": runs[name]["requests"],
                                         "ratio": None, "target": "0", "met": runs[name]["errors"] == 0}
    if runs[name]["errors"]:
        missed.append(key.replace("p99", "errors"))
sys.path.insert(0, "Benchmarks")
from bench_results import merge
merge(results_path, rows, "bench-https")
if missed:
    print(f"bench-https: missed target: {', '.join(missed)}", file=sys.stderr)
    sys.exit(3)
PY
echo "results: $results; wrk output and server logs: $work" >&2
exit "$status"
