# Sourced by the bench scripts: where results go, the Python reference (Agora's agoraiotools) in a virtualenv,
# helpers for the processes they start, and the token-server benches' shared load and tools.
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

# Processes the bench parts start and measure.

# Whether PID still runs (an exited child that is not yet waited for does not).
running() {
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
stop_server() {
    local pid=$1
    running "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    # tokencall finishes within 2 s of SIGTERM; nginx and Python stop at once. Then no more waiting.
    for _ in $(seq 50); do
        running "$pid" || break
        sleep 0.1
    done
    if running "$pid"; then
        echo "bench: process $pid did not stop on SIGTERM; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# Peak resident set of PID and its children (nginx's workers), in kB.
peak_rss_kb() {
    local total=0 pid kb
    for pid in "$1" $(pgrep -P "$1" || true); do
        kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        total=$((total + ${kb:-0}))
    done
    echo "$total"
}

# CPU time used so far by PID and its children (nginx's workers), in clock ticks.
cpu_ticks() {
    local total=0 pid ticks
    for pid in "$1" $(pgrep -P "$1" || true); do
        # utime and stime; the command name (field 2) may hold spaces, so count from after its ")".
        ticks=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }' || true)
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}

# Installs a Debian package the bench needs, with apt, when its binary is missing (the caller defines say and die).
install_with_apt() {
    local package=$1
    local runner=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "$package is missing and installing it needs root: apt-get install $package"
        runner=(sudo)
    fi
    command -v apt-get >/dev/null || die "$package is missing and there is no apt-get here; install $package yourself"
    say "installing $package with apt"
    # Bounded: a stuck mirror must not hang the bench.
    timeout 600 "${runner[@]}" apt-get update -qq >&2 || die "apt-get update failed; install $package yourself"
    DEBIAN_FRONTEND=noninteractive timeout 600 "${runner[@]}" apt-get install -y -qq "$package" >&2 \
        || die "apt-get install $package failed; install it yourself"
}

# The token-server benches (bench-server.sh over http, bench-https.sh over https) share one load and its tools.

# wrk's load on a token server: its script, warm-up, threads, connections and the app the tokens are for; `seconds`
# from the environment variable named $1 (10 when unset), checked (the caller defines die).
token_load_settings() {
    local variable=$1
    seconds=${!variable:-10}
    case "$seconds" in ''|*[!0-9]*|0) die "$variable must be a whole number of seconds > 0, not '$seconds'" ;; esac
    lua=Benchmarks/ServerBench/fetch_rtc_token.lua
    warmup_seconds=2
    threads=2
    connections=50
    export APP_ID=970CA35de60c44645bbae8a215061b33
    export APP_CERTIFICATE=5CFd2fd1755d40ecb72977518be15d3b
}

# wrk and nginx, each installed with apt when missing; sets nginx_bin (the caller defines say and die).
find_wrk_and_nginx() {
    command -v wrk >/dev/null || install_with_apt wrk
    nginx_bin=$(command -v nginx || true)
    [ -n "$nginx_bin" ] || { [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx; } || true
    if [ -z "$nginx_bin" ]; then
        install_with_apt nginx
        nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    fi
    [ -x "$nginx_bin" ] || die "nginx is not at $nginx_bin after installing it"
}

# A port free on 127.0.0.1 right now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Every process whose id the script adds to `pids` is stopped when it exits, however it exits.
stop_servers_on_exit() {
    pids=()
    trap 'for pid in "${pids[@]}"; do stop_server "$pid"; done' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# Waits (up to 10 s) for the `tokencall serve` of PID, writing to LOG, to say where it listens, and prints the port;
# exits through the caller's `die` when it ends first or says nothing.
serve_port() {
    local pid=$1 log=$2 port=""
    for _ in $(seq 100); do
        running "$pid" || die "tokencall serve exited before listening; its output is in $log"
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
        [ -z "$port" ] || break
        sleep 0.1
    done
    [ -n "$port" ] || die "tokencall serve did not say where it listens within 10 s; see $log"
    echo "$port"
}
