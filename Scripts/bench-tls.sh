#!/usr/bin/env bash
# An https:// token request from `join`'s transport on loopback, handshake included: 200 sequential requests (after
# 20 to warm up) to `openssl s_server -HTTP` with a test CA's certificate, p50 against the 5 ms bound (issue 21).
# Records https_token_request in .build/bench/results.json. Exit status 0 met, 3 missed (recorded), 1 could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/bench-env.sh

command -v openssl >/dev/null || { echo "bench-tls: needs the openssl command (Scripts/deps.sh installs it)" >&2; exit 1; }
swift build -c release --product tokencall-bench >&2 || exit 1
dir="$bench_dir/tls"
rm -rf "$dir" && mkdir -p "$dir"
key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${key[@]}" -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 2 -subj "/CN=TokenCall Bench CA" 2>/dev/null
openssl req "${key[@]}" -keyout "$dir/leaf.key" -out "$dir/leaf.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$dir/leaf.ext"
openssl x509 -req -in "$dir/leaf.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -set_serial 1 -days 2 \
    -extfile "$dir/leaf.ext" -out "$dir/leaf.pem" 2>/dev/null
# s_server -HTTP sends a file that is not .html as it is, so the file is the whole answer.
body='{"token": "007eJxTYA", "expiresIn": 3600}'
printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' "${#body}" "$body" >"$dir/token.json"

port=$(( 20000 + RANDOM % 20000 ))
(cd "$dir" && exec openssl s_server -quiet -HTTP -accept "127.0.0.1:$port" -cert leaf.pem -key leaf.key) >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
.build/release/tokencall-bench --https "https://127.0.0.1:$port/token.json" --ca-file "$dir/ca.pem" --results "$results"
