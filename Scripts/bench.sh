#!/usr/bin/env bash
# `make bench`: times our AccessToken2 build and parse+verify against Agora's Python reference
# (PyPI agoraiotools), then the token server under load (Scripts/bench-server.sh) and the call screen beside cmatrix
# (Scripts/bench-screen.sh), writes
# .build/bench/results.json, fails when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh

echo "== building tokencall-bench (release)" >&2
swift build -c release --product tokencall-bench

ensure_reference

echo "== timing the reference (agoraiotools $reference_version)" >&2
reference=$("$venv/bin/python" Benchmarks/reference.py)
figure() { "$venv/bin/python" -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$reference" "$1"; }
build_ns=$(figure token_build)
verify_ns=$(figure token_parse_verify)

echo "== timing tokencall" >&2
status=0
.build/release/tokencall-bench \
    --reference "token_build=$build_ns" \
    --reference "token_parse_verify=$verify_ns" \
    --results "$results" || status=$?
echo "results: $results" >&2

# The token server under load, beside the Python reference and nginx. It runs whatever the first part said;
# `make bench` fails when either part does.
echo "== token server" >&2
server_status=0
Scripts/bench-server.sh || server_status=$?
if [ "$status" -eq 0 ]; then status=$server_status; fi

# The call screen beside cmatrix (Scripts/bench-screen.sh); it runs whatever the parts before said.
echo "== call screen" >&2
screen_status=0
Scripts/bench-screen.sh || screen_status=$?
if [ "$status" -eq 0 ]; then status=$screen_status; fi
exit "$status"
