#!/usr/bin/env bash
# Checks the Debian packages the project needs; installs the missing ones when run as root.
set -euo pipefail

# openssl: the command the TLS tests and Scripts/bench-tls.sh make test certificates with.
# chromium, chromium-driver, python3-selenium: the browser tests (Tests/TokenCallTests/BrowserTests.swift).
# nodejs: the Web SDK script's syntax and module checks (Tests/TokenCallTests/WebScriptTests.swift).
# haproxy, redis-server: the scale-out tests (Tests/TokenCallTests/ScaleOutTests.swift) run Deploy/haproxy.cfg in front
# of three hubs sharing one Redis. (Tsung, for `make bench` alone, is installed by Scripts/bench-hub.sh, as wrk and
# nginx are by bench-server.sh.)
packages=(libncurses-dev libssl-dev openssl zlib1g-dev tmux libxml2 chromium chromium-driver python3-selenium haproxy
          redis-server nodejs)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

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
