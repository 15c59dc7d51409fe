#!/usr/bin/env bash
# Fuzzes the AccessToken parsers with libFuzzer + AddressSanitizer for $1 seconds (default 60).
#
#   Scripts/fuzz.sh [seconds]        (or: make fuzz FUZZ_SECONDS=300)
#
# Builds .build/fuzz/token-fuzzer from Fuzz/TokenFuzzer.swift and Sources/AccessToken/*.swift,
# writes seeds from the test fixtures into .build/fuzz/seeds/, and fuzzes with the corpus kept in
# .build/fuzz/corpus/ between runs. Exits non-zero on a finding (crash, sanitizer report, timeout,
# out-of-memory) after saying where the input was saved. See Docs/fuzzing.md.
set -euo pipefail

cd "$(dirname "$0")/.."

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: Scripts/fuzz.sh [seconds]   (a whole number above 0, default 60)" >&2
    exit 2
fi

SWIFTC="${SWIFTC:-swiftc}"
out=.build/fuzz
binary="$out/token-fuzzer"
seeds="$out/seeds"
corpus="$out/corpus"
artifacts="$out/artifacts"
log="$out/fuzz.log"
dict=Fuzz/tokens.dict
fixtures=Tests/AccessTokenTests/Fixtures/accesstoken2.json

mkdir -p "$out" "$corpus" "$artifacts"

# ---------------------------------------------------------------------------------------------
# Build (only when the harness, the module, its C shims or this script changed).

sources=(Fuzz/TokenFuzzer.swift Sources/AccessToken/*.swift)
inputs=("${sources[@]}" Sources/CCrypto/* Sources/CZlib/* Scripts/fuzz.sh)
stale=0
if [ ! -x "$binary" ]; then
    stale=1
else
    for input in "${inputs[@]}"; do
        if [ "$input" -nt "$binary" ]; then stale=1; break; fi
    done
fi
if [ "$stale" -eq 1 ]; then
    echo "fuzz: building $binary" >&2
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld \
        -g -swift-version 6 -module-name AccessToken \
        -I Sources/CCrypto -I Sources/CZlib -lcrypto -lz \
        "${sources[@]}" -o "$binary.tmp"
    mv -f "$binary.tmp" "$binary"
fi

# ---------------------------------------------------------------------------------------------
# Seeds, rewritten every run. Byte 0 of every input is the harness's mode (Fuzz/TokenFuzzer.swift):
# 0 token text, 1 inflated 007 content, 2 the same wrapped as a 007 token, 3 a 006 base64 body.

rm -rf "$seeds"
mkdir -p "$seeds"

# hex helpers: little-endian u16/u32 and a u16-length-prefixed string, all as hex digits
le16() { printf '%04x' "$1" | sed 's/\(..\)\(..\)/\2\1/'; }
le32() { printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
hexstr() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
lstr() { le16 "${#1}"; hexstr "$1"; }
# seed NAME MODE HEX: writes the mode byte followed by the bytes HEX spells
seed() { printf '%b' "\\x$2$(printf '%s' "$3" | sed 's/../\\x&/g')" >"$seeds/$1"; }

# Mode 0 (and 3 for 006 bodies): every token string in the fixtures.
n=0
while IFS= read -r token; do
    n=$((n + 1))
    seed "text-$n" 00 "$(hexstr "$token")"
    case "$token" in
        006*) seed "body006-$n" 03 "$(hexstr "${token:35}")" ;;
    esac
done < <(grep -o '"token": *"[^"]*"' "$fixtures" | sed 's/^"token": *"//; s/"$//')
if [ "$n" -eq 0 ]; then
    echo "fuzz: no token strings found in $fixtures" >&2
    exit 1
fi
seed text-empty 00 ""
seed text-007-short 00 "$(hexstr 007)"
seed text-006-short 00 "$(hexstr 006)"

# Modes 1 and 2: inflated 007 content built field by field from the fixture values.
app_id=970CA35de60c44645bbae8a215061b33
channel=7d72365eb983485397e3e3f9d460bdda
uid=2882341273
signature=16a0b84c5a5e82cbf74fb813d09f59c54bdac9c06120580539ac97578e958b1a
head="$(le16 32)$signature$(lstr "$app_id")$(le32 1111111)$(le32 600)$(le32 1)"
rtc_join="$(le16 1)$(le16 1)$(le16 1)$(le32 600)$(lstr "$channel")$(lstr "$uid")"
rtc_all="$(le16 1)$(le16 4)$(le16 1)$(le32 600)$(le16 2)$(le32 600)$(le16 3)$(le32 600)$(le16 4)$(le32 600)$(lstr "$channel")$(lstr "$uid")"
rtm="$(le16 2)$(le16 1)$(le16 1)$(le32 600)$(lstr "$uid")"
fpa="$(le16 4)$(le16 1)$(le16 1)$(le32 600)"
chat="$(le16 5)$(le16 1)$(le16 1)$(le32 600)$(lstr "$uid")"
apaas="$(le16 7)$(le16 1)$(le16 1)$(le32 600)$(lstr room)$(lstr "$uid")$(le16 2)"
streaming="$(le16 3)$(le16 1)$(le16 1)$(le32 600)"
declare -A contents=(
    [rtc-join]="$head$(le16 1)$rtc_join"
    [rtc-join-uid0]="$head$(le16 1)$(le16 1)$(le16 1)$(le16 1)$(le32 600)$(lstr "$channel")$(le16 0)"
    [rtc-publisher]="$head$(le16 1)$rtc_all"
    [multi-service]="$head$(le16 5)$rtc_all$rtm$fpa$chat$apaas"
    [stops-at-streaming]="$head$(le16 2)$rtc_join$streaming"
    [no-services]="$head$(le16 0)"
)
for name in "${!contents[@]}"; do
    seed "content-$name" 01 "${contents[$name]}"
    seed "wrapped-$name" 02 "${contents[$name]}"
done

# ---------------------------------------------------------------------------------------------
# Fuzz.

echo "fuzz: $seconds s, corpus $corpus ($(find "$corpus" -type f | wc -l) inputs), seeds $seeds ($(find "$seeds" -type f | wc -l) inputs)" >&2
started=$(date +%s)
set +e
SWIFT_BACKTRACE=enable=no "$binary" \
    -max_total_time="$seconds" \
    -dict="$dict" \
    -max_len=4096 \
    -rss_limit_mb=2048 \
    -timeout=5 \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts/" \
    "$corpus" "$seeds" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - started ))

# Figures from libFuzzer's own report.
# (sed, not grep: a crash on the first input leaves no "cov:" line, and grep's miss would end the script.)
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
coverage=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
features=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
corpus_size=$(find "$corpus" -type f | wc -l)

if [ "$status" -ne 0 ]; then
    artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
    echo >&2
    echo "fuzz: FINDING (libFuzzer exit $status) after ${executions:-?} executions in $elapsed s; log in $log" >&2
    # The frames in this project's code, demangled (libFuzzer's full report is in the log above).
    demangle=cat
    if command -v swift-demangle >/dev/null 2>&1; then demangle="swift-demangle --simplified"; fi
    sed -n '/ERROR: /,/^SUMMARY: /p' "$log" | grep -E '^ *#[0-9]+ ' | $demangle \
        | grep -E 'Sources/|Fuzz/|runtime failure' | sed 's/^ */fuzz:   /' >&2 || true
    if [ -n "$artifact" ] && [ -f "$artifact" ]; then
        echo "fuzz: the input is $artifact ($(wc -c <"$artifact") bytes, mode byte $(od -An -tu1 -N1 "$artifact" | tr -d ' '))" >&2
        { od -An -v -tx1 "$artifact" | tr -d ' \n' | fold -w 64; echo; } | sed 's/^/fuzz:   hex /' >&2
        echo "fuzz: reproduce with: SWIFT_BACKTRACE=enable=no $binary $artifact" >&2
    else
        echo "fuzz: libFuzzer wrote no input file; see the log" >&2
    fi
    exit "$status"
fi

echo "fuzz: ${executions:-?} executions in $elapsed s (${rate:-?} exec/s), coverage ${coverage:-?} edges / ${features:-?} features, corpus $corpus_size inputs: no finding"
