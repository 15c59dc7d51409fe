# Sourced by the bench scripts: where results go, and the Python reference (Agora's agoraiotools) in a virtualenv.
bench_dir=.build/bench
results="$bench_dir/results.json"
reference_version=0.3.4
venv="$bench_dir/venv"

# Creates the virtualenv and installs the reference into it when either is missing; on failure says how to fix it
# and exits 1.
ensure_reference() {
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
}
