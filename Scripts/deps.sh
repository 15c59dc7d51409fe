#!/usr/bin/env bash
# Checks the Debian packages the project needs; installs the missing ones when run as root. Then makes the Python
# virtualenv with Agora's builder (agoraiotools) that the tests against a token server in another language use
# (Tests/TokenCallTests/BuiltInsAgainstServersTests.swift) and `make bench` shares; when pip cannot reach PyPI, says
# so and goes on: those tests are then skipped, saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

python_reference() {
    . Scripts/bench-env.sh
    if ! (ensure_reference) >&2; then
        echo "deps: no agoraiotools virtualenv; the tests against a Python token server will be skipped" >&2
    fi
}

# openssl: the command the TLS tests and Scripts/bench-tls.sh make test certificates with.
# chromium, chromium-driver, python3-selenium: the browser tests (Tests/TokenCallTests/BrowserTests.swift).
# nodejs: the Web SDK script's syntax and module checks (Tests/TokenCallTests/WebScriptTests.swift).
# haproxy, redis-server: the scale-out tests (Tests/TokenCallTests/ScaleOutTests.swift) run Deploy/haproxy.cfg in front
# of three hubs sharing one Redis. (Tsung, for `make bench` alone, is installed by Scripts/bench-hub.sh, as wrk and
# nginx are by bench-server.sh.)
# python3-venv: the virtualenv for Agora's Python builder, below.
packages=(libncurses-dev libssl-dev openssl zlib1g-dev tmux libxml2 chromium chromium-driver python3-selenium haproxy
          redis-server nodejs python3-venv)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    python_reference
    exit 0
fi

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "tokencall needs these Debian packages: ${missing[*]}" >&2
    echo "install them with:  sudo sh -c '$command'" >&2
    exit 1
fi
echo "installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
python_reference
