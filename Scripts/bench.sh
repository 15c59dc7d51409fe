#!/usr/bin/env bash
# `make bench`: times our AccessToken2 build and parse+verify against Agora's Python reference
# (PyPI agoraiotools), then the token server under load (Scripts/bench-server.sh) and the call screen beside cmatrix
# (Scripts/bench-screen.sh), writes
# .build/bench/results.json, fails when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

reference_version=0.3.4
bench_dir=.build/bench
venv="$bench_dir/venv"
results="$bench_dir/results.json"

echo "== building tokencall-bench (release)" >&2
swift build -c release --product tokencall-bench

if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv" >&2
    mkdir -p "$bench_dir"
    if ! python3 -m venv "$venv"; then
        rm -rf "$venv"
        echo "bench: could not create a Python virtualenv at $venv." >&2
        echo "       It needs python3 with the venv module; on Debian: apt-get install python3-venv" >&2
        exit 1
    fi
fi
if ! "$venv/bin/python" -c "import agoraiotools, sys; sys.exit(agoraiotools.__version__ != '$reference_version')" 2>/dev/null; then
    echo "== installing agoraiotools==$reference_version into $venv" >&2
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "agoraiotools==$reference_version"; then
        echo "bench: pip could not install agoraiotools==$reference_version (Agora's Python reference) into $venv." >&2
        echo "       It comes from PyPI: check network access to pypi.org (or set PIP_INDEX_URL to a mirror)," >&2
        echo "       then run 'make bench' again; 'rm -rf $venv' starts the virtualenv afresh." >&2
        exit 1
    fi
fi

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
