#!/usr/bin/env bash
# The call-screen part of `make bench`: the release build of `tokencall --fps 25 --remote-users 4` and, for
# reference, `cmatrix -u 4` (also 25 frames/s), one after the other, each alone in a private tmux server at
# 200×50 with TERM=tmux-256color. For each, over a 10 s window that starts 1 s after the first frame:
#   - CPU time of the process (utime+stime of all its threads, from /proc/PID/stat);
#   - bytes written to the terminal per second (copied out by `tmux pipe-pane -o`);
# and, for tokencall, the time from launch to the first frame (the pane polled every 2 ms until the header
# "tokencall │" shows). Merges the figures into .build/bench/results.json, prints a table, and exits 3 when a
# target is missed (after recording), 1 when the run fails. Every tmux server it starts is killed on exit.
#
#   Scripts/bench-screen.sh                          # what `make bench` runs
#   BENCH_SCREEN_SECONDS=3 Scripts/bench-screen.sh   # a quicker look (the recorded figures use 10)
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh
work="$bench_dir/screen"
seconds=${BENCH_SCREEN_SECONDS:-10}
width=200
height=50
fps=25
remote_users=4
# Targets: CPU and bytes/s as ratios to cmatrix's; the first frame in ms.
target_cpu_ratio=0.5
target_bytes_ratio=1
target_first_frame_ms=200

sockets=("tokencall-bench-screen-$$-ours" "tokencall-bench-screen-$$-cmatrix")
cleanup() {
    for socket in "${sockets[@]}"; do tmux -L "$socket" kill-server 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

missing=()
command -v tmux >/dev/null || missing+=(tmux)
command -v cmatrix >/dev/null || missing+=(cmatrix)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "== installing ${missing[*]} with apt" >&2
    if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
    if ! { timeout 300 "${sudo[@]}" apt-get update -qq && \
           DEBIAN_FRONTEND=noninteractive timeout 300 "${sudo[@]}" apt-get install -y -qq "${missing[@]}"; } >&2; then
        echo "bench-screen: could not install ${missing[*]} (apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
if ! infocmp tmux-256color >/dev/null 2>&1; then
    echo "bench-screen: the terminfo entry tmux-256color is missing (Debian: apt-get install ncurses-term)" >&2
    exit 1
fi

echo "== building tokencall (release)" >&2
swift build -c release --product tokencall
binary=$(swift build -c release --product tokencall --show-bin-path)/tokencall

mkdir -p "$work"
measure() { timeout $((seconds + 60)) python3 Benchmarks/ScreenBench/measure.py --workdir "$work" \
    --width "$width" --height "$height" --seconds "$seconds" "$@"; }

echo "== call screen: tokencall --fps $fps --remote-users $remote_users, ${seconds} s at ${width}×${height}" >&2
ours=$(measure --name ours --socket "${sockets[0]}" --marker "tokencall │" -- \
    "$binary" --fps "$fps" --remote-users "$remote_users" --seed 1)
echo "== reference: cmatrix -u 4, ${seconds} s at ${width}×${height}" >&2
# cmatrix has no header; its first frame is not measured (any screen will do).
reference=$(measure --name cmatrix --socket "${sockets[1]}" --marker "" -- cmatrix -u 4)

status=0
python3 - "$ours" "$reference" "$results" "$seconds" "$target_cpu_ratio" "$target_bytes_ratio" "$target_first_frame_ms" \
    <<'EOF' || status=$?
import json, os, sys

ours, reference = json.loads(sys.argv[1]), json.loads(sys.argv[2])
results_path, seconds = sys.argv[3], float(sys.argv[4])
target_cpu, target_bytes, target_first_ms = (float(value) for value in sys.argv[5:8])

def per_10s(run): return run["cpu_seconds"] * 10 / run["window_seconds"]
def per_s(run): return run["bytes"] / run["window_seconds"]

figures = [
    # name, value, unit, reference, target ratio
    ("screen_cpu_vs_cmatrix", per_10s(ours), "CPU s per 10 s", per_10s(reference), target_cpu),
    ("screen_bytes_per_s_vs_cmatrix", per_s(ours), "bytes/s", per_s(reference), target_bytes),
    ("screen_first_frame_ms", ours["first_frame_ms"], "ms", target_first_ms, 1.0),
]

print()
print(f"call screen: 200×50 in tmux (TERM=tmux-256color), {seconds:g} s window; tokencall --fps 25 --remote-users 4 "
      f"vs cmatrix -u 4")
print(f"{'name':<32}{'ours':>14}{'reference':>14}{'ratio':>9}{'target':>9}{'ok':>5}  unit")
missed = []
rows = {}
for name, value, unit, ref, target in figures:
    ratio = value / ref if ref > 0 else float("inf")
    ok = ratio <= target
    if not ok: missed.append(name)
    rows[name] = {"value": round(value, 3), "unit": unit, "reference": round(ref, 3), "ratio": round(ratio, 4),
                  "target": "<= " + format(target, "g"), "met": ok}
    print(f"{name:<32}{value:>14.3f}{ref:>14.3f}{ratio:>9.3f}{'≤ ' + format(target, 'g'):>9}{'yes' if ok else 'NO':>5}  {unit}")
print()

sys.path.insert(0, "Benchmarks")
from bench_results import merge

merge(results_path, rows, "bench-screen")
if missed:
    print(f"bench-screen: missed target: {', '.join(missed)}", file=sys.stderr)
    sys.exit(3)
EOF
echo "results: $results; terminal output of each run: $work" >&2
exit "$status"
