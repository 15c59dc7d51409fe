#!/usr/bin/env bash
# Fuzzes with libFuzzer + AddressSanitizer, each target for $1 seconds (default 60):
#   token  the AccessToken parsers        (Fuzz/TokenFuzzer.swift + Sources/AccessToken/*.swift)
#   http   HTTP1's request parser, the server's direction (Fuzz/HTTPFuzzer.swift + Sources/HTTP1)
#   json   JSONValue.parse                (Fuzz/JSONFuzzer.swift + Sources/JSON/*.swift)
#   pasted a pasted token, PastedToken, and a server's answer that is the token alone
#                                         (Fuzz/PastedTokenFuzzer.swift + Sources/TokenClient/PastedToken.swift)
#   template  --token-request templates and --token-field paths
#                                         (Fuzz/TemplateFuzzer.swift + Sources/TokenClient/{RequestTemplate,FieldPath}.swift)
#   websocket  the WebSocket frame reader (Fuzz/WebSocketFuzzer.swift + Sources/WebSocket/*.swift)
#   hub    the hub's requests, notices, video frames and addresses
#                                         (Fuzz/HubFuzzer.swift + Sources/HubProtocol/*.swift + Sources/HubClient/HubAddress.swift,
#                                          on AgoraVocabulary's types)
#   hubclient  a hostile hub: what a client reads from its hub, notices and video frames on the wire
#                                         (Fuzz/HubClientFuzzer.swift + Sources/HubClient/HubInbound.swift)
#   recording  a recording file, Recording.read (Fuzz/RecordingFuzzer.swift + Sources/Recording/*.swift)
#   httpresponse  HTTP1's response parser, the client's direction (Fuzz/HTTPResponseFuzzer.swift + Sources/HTTP1)
#   httpclient  a hostile server on one kept-alive connection: HTTP1's ClientConnectionMachine over exchange after
#                                         exchange (Fuzz/HTTPClientFuzzer.swift + Sources/HTTP1)
#   tls    what an https:// server sends after the ClientHello (Fuzz/TLSFuzzer.swift + Sources/TLS/TLSSession.swift)
#   tlsserver  what a hostile client sends an https:// server, its ClientHello and after, through a server's Wire
#                                         (Fuzz/TLSServerFuzzer.swift + Sources/TLS/{TLSSession,Wire}.swift; a certificate
#                                          and key made with openssl in .build/fuzz/tlsserver/)
#   scenario  a tokencall test scenario file, Scenario(parsing:) (Fuzz/ScenarioFuzzer.swift + Sources/Scenarios/*.swift)
#   resp   what a hostile Redis sends the hub's channel leases (Fuzz/RESPFuzzer.swift + Sources/RedisClient/RESP*.swift,
#                                          RedisMachine.swift, RedisAddress.swift, RedisError.swift)
#
#   Scripts/fuzz.sh [seconds] [target...]   (or: make fuzz FUZZ_SECONDS=300)
#
# Each target is built into .build/fuzz/<target>-fuzzer and fuzzed with its seeds (rewritten every run) and its
# corpus (kept between runs) under .build/fuzz/<target>/. Every target runs even after another finds something;
# the script exits non-zero when any did, after saying where each input was saved. See Docs/fuzzing.md.
set -euo pipefail

cd "$(dirname "$0")/.."

all_targets=(token http json pasted template websocket hub hubclient recording httpresponse httpclient tls tlsserver resp scenario)
seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: Scripts/fuzz.sh [seconds] [target ...] (targets: ${all_targets[*]})   (seconds: a whole number above 0, default 60)" >&2
    exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    case " ${all_targets[*]} " in
        *" $target "*) ;;
        *) echo "fuzz: no target \"$target\"; the targets are ${all_targets[*]}" >&2; exit 2 ;;
    esac
done

SWIFTC="${SWIFTC:-swiftc}"
root=.build/fuzz
mkdir -p "$root"
# The token corpus lived in .build/fuzz/corpus before there were several targets.
if [ -d "$root/corpus" ] && [ ! -e "$root/token/corpus" ]; then
    mkdir -p "$root/token"
    mv "$root/corpus" "$root/token/corpus"
fi

# ---------------------------------------------------------------------------------------------
# What each target compiles: its harness and module sources, the module name, extra compiler flags, and the
# files whose change means a rebuild.

token_sources=(Fuzz/TokenFuzzer.swift Sources/AccessToken/*.swift)
token_module=AccessToken
token_flags=(-I Sources/CCrypto -I Sources/CZlib -lcrypto -lz -I "$root/modules" -L "$root/modules" -lPrintableText)
token_inputs=(Sources/CCrypto/* Sources/CZlib/* Sources/PrintableText/*.swift)
# Swift modules the target's module imports, built first as static libraries (instrumented as the target is).
token_imports=(PrintableText)
token_options=(-dict=Fuzz/tokens.dict -max_len=4096)

http_sources=(Fuzz/HTTPFuzzer.swift Fuzz/Arrivals.swift Sources/HTTP1/*.swift)
http_module=HTTP1
http_flags=(-I "$root/modules" -L "$root/modules" -lPrintableText)
http_inputs=(Sources/PrintableText/*.swift)
http_imports=(PrintableText)
# Past 8 KiB, so that heads over the limit (431) are reached.
http_options=(-dict=Fuzz/http.dict -max_len=12288)

json_sources=(Fuzz/JSONFuzzer.swift Sources/JSON/*.swift)
json_module=JSON
json_flags=()
json_inputs=()
json_imports=()
json_options=(-dict=Fuzz/json.dict -max_len=4096)

pasted_sources=(Fuzz/PastedTokenFuzzer.swift Sources/TokenClient/PastedToken.swift Sources/TokenClient/TokenRequest.swift
                Sources/TokenClient/TokenClientError.swift)
pasted_module=TokenClient
pasted_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules" -L "$root/modules" -lAccessToken -lPrintableText -lTimers -lcrypto -lz)
pasted_inputs=(Sources/AccessToken/*.swift Sources/Timers/*.swift)
pasted_imports=(PrintableText AccessToken Timers)
# Past the 4096-byte limit, so that too-long pastes are reached.
pasted_options=(-dict=Fuzz/tokens.dict -max_len=5000)

scenario_sources=(Fuzz/ScenarioFuzzer.swift Sources/Scenarios/*.swift)
scenario_module=Scenarios
scenario_flags=(-I "$root/modules" -L "$root/modules" -lPrintableText)
scenario_inputs=(Sources/PrintableText/*.swift)
scenario_imports=(PrintableText)
# Past the 16 KiB line limit.
scenario_options=(-dict=Fuzz/scenario.dict -max_len=20000)

# Flags of a module built for import (what it imports in turn).
AccessToken_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules")
PrintableText_import_flags=()
OutputFiles_import_flags=()
JSON_import_flags=()
HTTP1_import_flags=(-I "$root/modules")
Sockets_import_flags=(-I Sources/CLinux -I "$root/modules")
Timers_import_flags=()
SeededRandom_import_flags=()
AgoraVocabulary_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules")
ChannelEngine_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules")
TokenClient_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I Sources/CLinux -I "$root/modules")
CallSession_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I Sources/CLinux -I "$root/modules")
HubProtocol_import_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules")
TLS_import_flags=(-I Sources/CCrypto -I Sources/CLinux -I "$root/modules")
WebSocket_import_flags=(-I Sources/CCrypto)

# The recording reader sits on the session's events, so it brings their modules along, in import order.
recording_sources=(Fuzz/RecordingFuzzer.swift Sources/Recording/*.swift)
recording_module=Recording
recording_imports=(PrintableText OutputFiles Timers SeededRandom Sockets JSON AccessToken AgoraVocabulary HubProtocol ChannelEngine HTTP1
                   TLS TokenClient CallSession)
recording_flags=(-I Sources/CCrypto -I Sources/CZlib -I Sources/CLinux -I "$root/modules" -L "$root/modules" -lCallSession -lTokenClient -lTLS
                 -lHTTP1 -lChannelEngine -lHubProtocol -lAgoraVocabulary -lAccessToken -lJSON -lSockets -lTimers -lSeededRandom
                 -lOutputFiles -lPrintableText -lssl -lcrypto -lz)
recording_inputs=(Sources/CallSession/*.swift Sources/ChannelEngine/*.swift Sources/TokenClient/*.swift Sources/AccessToken/*.swift
                  Sources/AgoraVocabulary/*.swift Sources/HTTP1/*.swift Sources/TLS/*.swift Sources/CLinux/*
                  Sources/JSON/*.swift Sources/HubProtocol/*.swift Sources/Sockets/*.swift Sources/Timers/*.swift Sources/OutputFiles/*.swift Sources/PrintableText/*.swift)
# Past the 64 KiB line limit.
recording_options=(-dict=Fuzz/recording.dict -max_len=70000)

template_sources=(Fuzz/TemplateFuzzer.swift Sources/TokenClient/RequestTemplate.swift Sources/TokenClient/FieldPath.swift)
template_module=TokenClient
template_flags=(-I "$root/modules" -L "$root/modules" -lJSON -lPrintableText)
template_inputs=(Sources/JSON/*.swift Sources/PrintableText/*.swift)
template_imports=(JSON PrintableText)
# Past the 2 KiB template limit.
template_options=(-dict=Fuzz/template.dict -max_len=2200)

websocket_sources=(Fuzz/WebSocketFuzzer.swift Fuzz/Arrivals.swift Sources/WebSocket/*.swift)
websocket_module=WebSocket
websocket_flags=(-I Sources/CCrypto -lcrypto)
websocket_inputs=(Sources/CCrypto/*)
websocket_imports=()
# Past the 1024-byte message limit the harness sets, so that 1009 is reached.
websocket_options=(-dict=Fuzz/websocket.dict -max_len=4096)

hub_sources=(Fuzz/HubFuzzer.swift Sources/HubProtocol/*.swift Sources/HubClient/HubAddress.swift)
hub_module=HubProtocol
hub_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules" -L "$root/modules" -lAgoraVocabulary -lAccessToken -lJSON
           -lPrintableText -lTimers -lcrypto -lz)
hub_inputs=(Sources/JSON/*.swift Sources/PrintableText/*.swift Sources/AccessToken/*.swift Sources/AgoraVocabulary/*.swift
            Sources/Timers/*.swift Sources/CCrypto/* Sources/CZlib/*)
hub_imports=(JSON PrintableText Timers AccessToken AgoraVocabulary)
hub_options=(-dict=Fuzz/hub.dict -max_len=4096)

# A hostile hub: the client's reading of the wire (HubInbound), on the protocol's types and the WebSocket reader.
hubclient_sources=(Fuzz/HubClientFuzzer.swift Fuzz/Arrivals.swift Sources/HubClient/HubInbound.swift)
hubclient_module=HubClient
hubclient_imports=(JSON PrintableText Timers AccessToken AgoraVocabulary HubProtocol WebSocket)
hubclient_flags=(-I Sources/CCrypto -I Sources/CZlib -I "$root/modules" -L "$root/modules" -lHubProtocol -lAgoraVocabulary -lAccessToken
                 -lWebSocket -lJSON -lPrintableText -lTimers -lcrypto -lz)
hubclient_inputs=(Sources/HubProtocol/*.swift Sources/AgoraVocabulary/*.swift Sources/AccessToken/*.swift Sources/WebSocket/*.swift
                  Sources/JSON/*.swift Sources/PrintableText/*.swift Sources/Timers/*.swift Sources/CCrypto/* Sources/CZlib/*)
# Room for a joined listing a few hundred users, and a frame past the 4096-byte limit.
hubclient_options=(-dict=Fuzz/hubclient.dict -max_len=16384)

resp_sources=(Fuzz/RESPFuzzer.swift Sources/RedisClient/RESPReader.swift Sources/RedisClient/RESPValue.swift
              Sources/RedisClient/RedisMachine.swift Sources/RedisClient/RedisAddress.swift Sources/RedisClient/RedisError.swift)
resp_module=RedisClient
resp_flags=(-I "$root/modules" -L "$root/modules" -lPrintableText)
resp_inputs=(Sources/PrintableText/*.swift)
resp_imports=(PrintableText)
resp_options=(-max_len=4096)

httpresponse_sources=(Fuzz/HTTPResponseFuzzer.swift Fuzz/Arrivals.swift Sources/HTTP1/*.swift)
httpresponse_module=HTTP1
httpresponse_flags=(-I "$root/modules" -L "$root/modules" -lPrintableText)
httpresponse_inputs=(Sources/PrintableText/*.swift)
httpresponse_imports=(PrintableText)
# Past the 16 KiB head limit.
httpresponse_options=(-dict=Fuzz/httpresponse.dict -max_len=20000)

httpclient_sources=(Fuzz/HTTPClientFuzzer.swift Fuzz/Arrivals.swift Sources/HTTP1/*.swift)
httpclient_module=HTTP1
httpclient_flags=(-I "$root/modules" -L "$root/modules" -lPrintableText)
httpclient_inputs=(Sources/PrintableText/*.swift)
httpclient_imports=(PrintableText)
# Several answers, one past the 16 KiB head limit.
httpclient_options=(-dict=Fuzz/httpresponse.dict -max_len=40000)

tls_sources=(Fuzz/TLSFuzzer.swift Fuzz/Arrivals.swift Sources/TLS/TLSSession.swift)
tls_module=TLS
tls_flags=(-I Sources/CCrypto -I "$root/modules" -L "$root/modules" -lPrintableText -lssl -lcrypto)
tls_inputs=(Sources/CCrypto/* Sources/PrintableText/*.swift)
tls_imports=(PrintableText)
# Several records of the largest size.
tls_options=(-max_len=40000)

# The server's session and the Wire its connections read through, over one end of a socketpair.
tlsserver_sources=(Fuzz/TLSServerFuzzer.swift Fuzz/Arrivals.swift Sources/TLS/TLSSession.swift Sources/TLS/Wire.swift)
tlsserver_module=TLS
tlsserver_flags=(-I Sources/CCrypto -I Sources/CLinux -I "$root/modules" -L "$root/modules" -lSockets -lTimers -lPrintableText -lssl -lcrypto)
tlsserver_inputs=(Sources/CCrypto/* Sources/CLinux/* Sources/Sockets/*.swift Sources/Timers/*.swift Sources/PrintableText/*.swift)
tlsserver_imports=(PrintableText Timers Sockets)
# A ClientHello, a client's second flight and a request, with room to spare; and several records of the largest size.
tlsserver_options=(-max_len=40000)

# import_module NAME: Sources/NAME as a static library and module in $root/modules, when a source is newer.
import_module() {
    local name=$1 library="$root/modules/lib$1.a" source
    mkdir -p "$root/modules"
    if [ -e "$library" ]; then
        local stale=0
        for source in Sources/"$name"/*.swift Scripts/fuzz.sh; do
            if [ "$source" -nt "$library" ]; then stale=1; break; fi
        done
        [ "$stale" -eq 1 ] || return 0
    fi
    echo "fuzz: building $library" >&2
    local -n import_flags="${name}_import_flags"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -module-name "$name" "${import_flags[@]}" \
        -emit-module -emit-module-path "$root/modules/$name.swiftmodule" -emit-library -static \
        Sources/"$name"/*.swift -o "$library"
}

build() {
    local target=$1 binary="$root/$1-fuzzer"
    local -n sources="${target}_sources" flags="${target}_flags" inputs="${target}_inputs" imports="${target}_imports"
    local module="${target}_module"
    local input stale=0
    for input in "${imports[@]}"; do import_module "$input"; done
    if [ ! -x "$binary" ]; then
        stale=1
    else
        for input in "${sources[@]}" "${inputs[@]}" Scripts/fuzz.sh; do
            if [ "$input" -nt "$binary" ]; then stale=1; break; fi
        done
    fi
    [ "$stale" -eq 1 ] || return 0
    echo "fuzz: building $binary" >&2
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld \
        -g -swift-version 6 -module-name "${!module}" "${flags[@]}" \
        "${sources[@]}" -o "$binary.tmp"
    mv -f "$binary.tmp" "$binary"
}

# ---------------------------------------------------------------------------------------------
# Seeds.

# seed DIR NAME TEXT: writes TEXT (printf %b escapes: \r, \n, \xHH) to DIR/NAME
seed() { printf '%b' "$3" >"$1/$2"; }

# The token harness: byte 0 of every input is its mode (Fuzz/TokenFuzzer.swift): 0 token text, 1 inflated 007
# content, 2 the same wrapped as a 007 token, 3 a 006 base64 body.
token_seeds() {
    local seeds=$1 fixtures=Tests/AccessTokenTests/Fixtures/accesstoken2.json
    # hex helpers: little-endian u16/u32 and a u16-length-prefixed string, all as hex digits
    le16() { printf '%04x' "$1" | sed 's/\(..\)\(..\)/\2\1/'; }
    le32() { printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
    hexstr() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
    lstr() { le16 "${#1}"; hexstr "$1"; }
    # hexseed NAME MODE HEX: writes the mode byte followed by the bytes HEX spells
    hexseed() { printf '%b' "\\x$2$(printf '%s' "$3" | sed 's/../\\x&/g')" >"$seeds/$1"; }

    # Mode 0 (and 3 for 006 bodies): every token string in the fixtures.
    local n=0 token
    while IFS= read -r token; do
        n=$((n + 1))
        hexseed "text-$n" 00 "$(hexstr "$token")"
        case "$token" in
            006*) hexseed "body006-$n" 03 "$(hexstr "${token:35}")" ;;
        esac
    done < <(grep -o '"token": *"[^"]*"' "$fixtures" | sed 's/^"token": *"//; s/"$//')
    if [ "$n" -eq 0 ]; then
        echo "fuzz: no token strings found in $fixtures" >&2
        exit 1
    fi
    hexseed text-empty 00 ""
    hexseed text-007-short 00 "$(hexstr 007)"
    hexseed text-006-short 00 "$(hexstr 006)"

    # Modes 1 and 2: inflated 007 content built field by field from the fixture values.
    local app_id=970CA35de60c44645bbae8a215061b33 channel=7d72365eb983485397e3e3f9d460bdda uid=2882341273
    local signature=16a0b84c5a5e82cbf74fb813d09f59c54bdac9c06120580539ac97578e958b1a
    local head rtc_join rtc_all rtm fpa chat apaas streaming name
    head="$(le16 32)$signature$(lstr "$app_id")$(le32 1111111)$(le32 600)$(le32 1)"
    rtc_join="$(le16 1)$(le16 1)$(le16 1)$(le32 600)$(lstr "$channel")$(lstr "$uid")"
    rtc_all="$(le16 1)$(le16 4)$(le16 1)$(le32 600)$(le16 2)$(le32 600)$(le16 3)$(le32 600)$(le16 4)$(le32 600)$(lstr "$channel")$(lstr "$uid")"
    rtm="$(le16 2)$(le16 1)$(le16 1)$(le32 600)$(lstr "$uid")"
    fpa="$(le16 4)$(le16 1)$(le16 1)$(le32 600)"
    chat="$(le16 5)$(le16 1)$(le16 1)$(le32 600)$(lstr "$uid")"
    apaas="$(le16 7)$(le16 1)$(le16 1)$(le32 600)$(lstr room)$(lstr "$uid")$(le16 2)"
    streaming="$(le16 3)$(le16 1)$(le16 1)$(le32 600)"
    local -A contents=(
        [rtc-join]="$head$(le16 1)$rtc_join"
        [rtc-join-uid0]="$head$(le16 1)$(le16 1)$(le16 1)$(le16 1)$(le32 600)$(lstr "$channel")$(le16 0)"
        [rtc-publisher]="$head$(le16 1)$rtc_all"
        [multi-service]="$head$(le16 5)$rtc_all$rtm$fpa$chat$apaas"
        [stops-at-streaming]="$head$(le16 2)$rtc_join$streaming"
        [no-services]="$head$(le16 0)"
    )
    for name in "${!contents[@]}"; do
        hexseed "content-$name" 01 "${contents[$name]}"
        hexseed "wrapped-$name" 02 "${contents[$name]}"
    done
}

# The HTTP harness: byte 0 picks how the rest is split into arrivals (Fuzz/HTTPFuzzer.swift); the rest is what a
# client sends: the requests the endpoints take, pipelined ones, and a few the reader must refuse.
http_seeds() {
    local seeds=$1 split
    local body='{"uid": 42, "channelName": "test", "role": 1}'
    local fetch="POST /fetch_rtc_token HTTP/1.1\r\nHost: 127.0.0.1:8082\r\nContent-Type: application/json\r\nContent-Length: ${#body}\r\n\r\n$body"
    local rtc="GET /rtc/test/publisher/uid/42/?expiry=600 HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n"
    for split in 0 1 3 5; do
        seed "$seeds" "fetch-$split" "\\x0$split$fetch"
        seed "$seeds" "pipelined-$split" "\\x0$split$fetch${rtc}HEAD /ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
    done
    seed "$seeds" get-token '\x02POST /getToken HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}'
    seed "$seeds" escapes '\x04GET /rtc/a%20b/1/uid/5/?expiry=60&x=%41+b HTTP/1.1\r\nHost: x\r\nX-Text: caf\xc3\xa9\t\r\n\r\n'
    seed "$seeds" bare-lf '\x01GET /ping HTTP/1.1\r\nX: a\nTransfer-Encoding: chunked\r\n\r\n'
    seed "$seeds" smuggle '\x00POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
    seed "$seeds" fold '\x03GET / HTTP/1.1\r\nX: a\r\n b\r\nContent-Length: +1\r\n\r\nx'
    seed "$seeds" hosts '\x02GET / HTTP/1.1\r\nHost: [::1]:8082\r\n\r\nGET / HTTP/1.1\r\nHost: Tokens.Example.COM.:443\r\n\r\nGET / HTTP/1.1\r\nHost: a.farm.example\r\n\r\nGET / HTTP/1.1\r\nHost: 10.0.0.255:80\r\n\r\n'
}

# The JSON harness: the whole input is a body.
json_seeds() {
    local seeds=$1
    seed "$seeds" fetch '{"uid": 42, "channelName": "test", "role": 1}'
    seed "$seeds" get-token '{"tokenType": "rtc", "channel": "test", "role": "publisher", "uid": "42", "expire": 600}'
    seed "$seeds" values '[null, true, false, 0, -1, 1.5e-3, 9223372036854775807, 18446744073709551616, "a\\u00e9\\ud83d\\ude00\\n"]'
    seed "$seeds" nested '{"a": {"b": [[], {}, [{"c": ""}]]}}'
    seed "$seeds" spaces ' \t\r\n{ "k" : "v" } \n'
}

# The pasted harness: the whole input is the pasted text. The fixtures' tokens, as given and as people paste them.
pasted_seeds() {
    local seeds=$1 token index=0
    for token in $(grep -o '"token": "0[0-9][0-9][^"]*"' Tests/AccessTokenTests/Fixtures/accesstoken2.json | cut -d'"' -f4 | head -4); do
        index=$((index + 1))
        seed "$seeds" "bare-$index" "$token"
        seed "$seeds" "newline-$index" " $token\r\n"
        seed "$seeds" "bearer-$index" "Bearer $token"
        seed "$seeds" "quoted-$index" "\"$token\""
        seed "$seeds" "broken-$index" "${token:0:60}\n${token:60}"
    done
    seed "$seeds" hex 970CA35de60c44645bbae8a215061b33
    seed "$seeds" empty ' \n'
}

# The scenario harness: the whole input is a scenario file.
scenario_seeds() {
    local seeds=$1
    seed "$seeds" renewals '# a day of renewals\njoin\nexpect connectionStateChanged state=connected within 5s\nexpect tokenRenewed method=renew within 40s\nwait 1d\n'
    seed "$seeds" checks 'method update\nauto-renew off\nrole audience\njoin\nexpect no tokenPrivilegeWillExpire for 250ms\nexpect state connected\nexpect fetches 1\n'
    seed "$seeds" faults 'join\ncut network\nwait 15s\nrestore network\nstop server\nstart server\nmisconfigure stale\nusers 3\nexpect note text="a b" within 1s\n'
    seed "$seeds" misspelt 'joni\r\nexpect conectionStateChanged within 1s\n'
    seed "$seeds" two 'join\nB: join\nB: expect didJoinedOfUid within 5s\nA: cut network\nb: wait 1s\nB:\tmisconfigure stale\nC:\n'
}

# The template harness: byte 0 is the mode (Fuzz/TemplateFuzzer.swift): 0 a template, 1 a field path.
template_seeds() {
    local seeds=$1
    seed "$seeds" fetch '\x00POST /fetch_rtc_token {"uid":{uid},"channelName":"{channel}","role":{role}}'
    seed "$seeds" get-token '\x00POST /getToken {"tokenType":"rtc","channel":"{channel}","role":"{roleName}","uid":"{user}","expire":{expire}}'
    seed "$seeds" node '\x00GET /rtc/{channel}/{role:publisher|audience}/{userType}/{user}?expiry={expire}'
    seed "$seeds" query '\x00get /api/v1/token;x=1?channel={channel}&uid={uid}&a=%41+b'
    seed "$seeds" escapes '\x00PUT /t {"s":"\\"{account}\\\\","n":[{uid},{expire}],"k":{"a":"{channel}"}}'
    seed "$seeds" broken '\x00POST //x/{chan {"a":{channel}}'
    # The first finding: {expire} joined to digits, which a lifetime of 0 made into 06.8.
    seed "$seeds" number-joined '\x00POST / {expire}6.8'
    seed "$seeds" field '\x01data.token'
    seed "$seeds" field-index '\x01data.list.1.exp'
    seed "$seeds" field-bad '\x01a..b.c.d.e.f.g.h.i'
    seed "$seeds" field-whole '\x01.'
}

# The WebSocket harness: byte 0 picks the role (bit 7 client) and the split; the rest is frames: RFC 6455's
# examples, fragments with a ping between them, close frames, and a few the reader must refuse.
websocket_seeds() {
    local seeds=$1
    seed "$seeds" masked-hello '\x00\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58'
    seed "$seeds" fragments '\x03\x01\x83\x00\x00\x00\x00Hel\x89\x80\x01\x02\x03\x04\x80\x82\x00\x00\x00\x00lo'
    seed "$seeds" unmasked-client '\x81\x01\x03Hel\x80\x02lo\x8a\x00'
    seed "$seeds" close '\x02\x88\x85\x00\x00\x00\x00\x03\xe8bye'
    seed "$seeds" long16 "\\x05\\x82\\xfe\\x00\\x80\\x00\\x00\\x00\\x00$(printf '%0128d' 0)"
    seed "$seeds" too-big '\x04\x82\xff\x00\x00\x00\x00\x00\x01\x00\x00'
    seed "$seeds" bad-utf8 '\x01\x81\x82\x00\x00\x00\x00\xc3\x28'
    seed "$seeds" answer-101 '\x80HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo='
    seed "$seeds" answer-404 '\x80HTTP/1.1 404 Not Found\r\nContent-Length: 0'
}

# The hub harness: the whole input is a text frame: each request of the protocol, and a few it must refuse; two
# video frames, one the format allows and one it does not.
hub_seeds() {
    local seeds=$1
    seed "$seeds" join '{"type":"join","channel":"standup","uid":42,"token":"007eJxTYA","role":"broadcaster"}'
    seed "$seeds" join-account '{"type":"join","appId":"970CA35de60c44645bbae8a215061b33","channel":"a b","account":"alice","token":""}'
    seed "$seeds" renew '{"type":"renew","token":"007eJxTYA"}'
    seed "$seeds" role '{"type":"setRole","role":"audience"}'
    seed "$seeds" leave '{"type":"leave"}'
    seed "$seeds" media '{"type":"media","audio":"muted","video":"off"}'
    seed "$seeds" join-media '{"type":"join","channel":"c","uid":1,"token":"t","audio":"on","video":"muted"}'
    seed "$seeds" user-media '{"audio":"on","type":"userMedia","uid":7,"video":"muted"}'
    seed "$seeds" both '{"type":"join","channel":"c","uid":1,"account":"a","token":"t"}'
    seed "$seeds" video '\x01\x00\x00\x00\x00\x20\x12\xff\x0a\x14\x1e\xff\x0a\x14\x1e\x42\x0a\x14\x1e'
    # Issue 19's frame, which the hub forwarded unread: a 32×18 header and runs of 10 cells.
    seed "$seeds" video-short '\x01\x00\x00\x00\x00\x20\x12\x0a\xff\x00\x00'
    seed "$seeds" joined '{"channel":"c","expiresAt":1800000600,"role":"broadcaster","type":"joined","uid":1,"users":[{"account":"bob","uid":2},{"uid":3}]}'
    seed "$seeds" offline '{"reason":"dropped","reasonCode":1,"type":"userOffline","uid":7}'
    seed "$seeds" offline-silent '{"reason":"dropped","reasonCode":1,"silentMs":20000,"type":"userOffline","uid":7}'
    seed "$seeds" renewed '{"expiresAt":1800003600,"result":"success","resultCode":0,"type":"renewTokenResult"}'
    seed "$seeds" state '{"error":"tokenExpired","errorCode":109,"reason":"tokenExpired","reasonCode":9,"state":"failed","stateCode":5,"type":"connectionStateChanged"}'
    seed "$seeds" role-changed '{"newRole":"audience","oldRole":"broadcaster","type":"clientRoleChanged"}'
    seed "$seeds" address 'ws://127.0.0.1:8082/hub?channel=standup'
    seed "$seeds" address-v6 'ws://[::1]:9000/hub'
}

# The hostile hub's harness: byte 0 picks the split; then messages, each a kind byte (0 text, 1 binary, 2 ping, 3 text
# in fragments, 4 close, else raw bytes) and a two-byte length (Fuzz/HubClientFuzzer.swift). Every notice a hub sends,
# the issue's frame that does not add up, good and oversized frames, and a few the client must refuse.
# The RESP harness: byte 0 picks the split (0 all at once, 1...8 bytes a piece); the rest is what Redis answers the
# leases: SET NX GET's null or holder, OK, EVAL's integers, errors, a pipelined array.
resp_seeds() {
    local seeds=$1
    seed "$seeds" set-taken '\x00$-1\r\n$22\r\nws://127.0.0.1:8082/hub\r\n'
    seed "$seeds" pipelined '\x03:1\r\n:0\r\n+OK\r\n-ERR unknown command\r\n'
    seed "$seeds" nested '\x01*2\r\n*1\r\n$3\r\nabc\r\n*-1\r\n'
    seed "$seeds" broken '\x05$5\r\nabc\r\n:99999999999999999999\r\n'
}

hubclient_seeds() {
    local seeds=$1
    # message KIND TEXT: the kind, TEXT's length in two bytes, TEXT (printf %b escapes allowed in TEXT)
    message() {
        local bytes
        bytes=$(printf '%b' "$2" | wc -c)
        printf '\\x%02x\\x%02x\\x%02x%s' "$1" $((bytes >> 8)) $((bytes & 255)) "$2"
    }
    local joined='{"channel":"c","expiresAt":1800000600,"role":"broadcaster","type":"joined","uid":1,"users":[{"account":"bob","uid":2},{"uid":3}]}'
    local frame='\x01\x00\x00\x00\x07\x02\x01\x02\xff\x00\x00'
    seed "$seeds" joined "\x00$(message 0 "$joined")$(message 1 "$frame")"
    seed "$seeds" notices "\x03$(message 0 '{"type":"userJoined","uid":9,"account":"carol"}')$(message 0 '{"reason":"dropped","reasonCode":1,"type":"userOffline","uid":9}')$(message 0 '{"newRole":"audience","oldRole":"broadcaster","type":"clientRoleChanged"}')$(message 0 '{"expiresAt":1800000630,"type":"tokenPrivilegeWillExpire"}')$(message 0 '{"expiresAt":1800003600,"result":"success","resultCode":0,"type":"renewTokenResult"}')$(message 0 '{"message":"no","type":"error"}')"
    seed "$seeds" state "\x01$(message 3 '{"error":"tokenExpired","errorCode":109,"reason":"tokenExpired","reasonCode":9,"state":"failed","stateCode":5,"type":"connectionStateChanged"}')$(message 4 'bye')"
    seed "$seeds" unreadable "\x02$(message 1 '\x01\x00\x00\x00\x03\x20\x12\x0a\xff\x00\x00')$(message 1 "$frame")$(message 2 'hi')"
    seed "$seeds" no-header "\x04$(message 1 '\x02\x00\x00\x00\x03\x20\x12')"
    seed "$seeds" not-a-notice "\x05$(message 0 '{"type":"hello"}')"
    seed "$seeds" user-media "\x00$(message 0 "$joined")$(message 0 '{"audio":"muted","type":"userMedia","uid":2,"video":"off"}')"
    seed "$seeds" raw "\x00$(message 9 '\x82\x7f\x00\x00\x00\x00\x7f\x00\x00\x00')"
}

# The recording harness: the whole input is a recording file. A header and a few events of each family, as the
# recorder writes them, and the same cut short.
recording_seeds() {
    local seeds=$1
    local header='{"format": "tokencall-recording", "version": 1, "options": {"seed": "7"}, "seed": 7, "started": 1800000000.000, "call": {"channel": "test", "uid": 0, "account": null, "role": "broadcaster", "tokenServer": "http://127.0.0.1:1/ (embedded)", "renewMethod": "renew", "autoRenew": true}}'
    local events='{"t": 0.012, "event": "tokenFetched", "latency": 0.010, "expiresAt": 1800000040}
{"t": 0.120, "event": "didJoinChannel", "channel": "test", "uid": 42, "elapsed": 100}
{"t": 0.120, "event": "simulatorNotice", "notice": "tokenAccepted", "expiresAt": 1800000040, "short": false}
{"t": 2.000, "event": "reportRtcStats", "duration": 2, "users": 2, "stats": {"duration": 2, "txBytes": 0, "rxBytes": 0, "users": 2, "cpuAppUsage": 0.0}}
{"t": 3.000, "event": "reportAudioVolumeIndicationOfSpeakers", "speakers": 1, "totalVolume": 9, "volumes": [{"uid": 0, "volume": 9, "vad": 0}]}
{"t": 4.000, "event": "note", "text": "renew method update", "renewMethod": "update"}
{"t": 5.000, "event": "note", "text": "misconfigure none: the embedded token server'"'"'s tokens are right again", "mistake": null}
{"t": 9.500, "event": "tokenFetchFailed", "error": "the server answered 503", "retryIn": null}
{"t": 10.000, "event": "sessionEnded", "failed": false}'
    seed "$seeds" header-only "$header\n"
    seed "$seeds" call "$header\n$events\n"
    seed "$seeds" cut-short "$header\n${events:0:200}"
}

# The answer reader's harness: byte 0 picks the split (and, bit 7, a HEAD request); the rest is what a server answers
# before it closes: each framing, the two answers FoundationNetworking traps on, and a few the reader must refuse.
httpresponse_seeds() {
    local seeds=$1 split
    local body='{"token": "007eJxTYA", "expiresIn": 3600}'
    for split in 0 1 3 5; do
        seed "$seeds" "length-$split" "\\x0${split}HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${#body}\r\n\r\n$body"
        seed "$seeds" "chunked-trailer-$split" "\\x0${split}HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=1\r\n{}\r\n0\r\nX-Checksum: 1\r\n\r\n"
    done
    seed "$seeds" cut-head '\x02HTTP/1.1 200 OK\r\nX-Slow: aaa'
    seed "$seeds" interim '\x04HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 429 Busy\r\nRetry-After: 7\r\n\r\n{"error": "busy"}'
    seed "$seeds" head '\x81HTTP/1.1 307 Temporary Redirect\r\nLocation: /v2\r\nContent-Length: 10\r\n\r\n'
    seed "$seeds" fold '\x03HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: +1\r\nContent-Length: 1\r\n\r\nx'
    seed "$seeds" both '\x00HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n'
}

# The client connection's harness: byte 0 as httpresponse's; the rest is what a server sends on one connection over
# several exchanges: answers that keep it, one that closes it, one read to the close, extra bytes after an answer.
httpclient_seeds() {
    local seeds=$1 split
    local body='{"token": "007eJxTYA", "expiresIn": 3600}'
    local kept="HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${#body}\r\n\r\n$body"
    for split in 0 1 3 5; do
        seed "$seeds" "kept-$split" "\\x0${split}$kept$kept$kept"
    done
    seed "$seeds" chunked-then-close "\x02HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n${kept}HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
    seed "$seeds" until-close "\x04$kept""HTTP/1.0 200 OK\r\n\r\n{}"
    seed "$seeds" extra "\x05HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"
    seed "$seeds" head "\x81HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\n"
}

# The TLS harness: byte 0 seeds the split and picks the host (bit 0); the rest is what a server sends after the
# ClientHello: alerts, the start of a ServerHello, a record too long, and an HTTP answer to a TLS request.
tls_seeds() {
    local seeds=$1 random
    random=$(printf '\\x%02x' $(seq 1 32))
    seed "$seeds" alert-handshake '\x00\x15\x03\x03\x00\x02\x02\x28'
    seed "$seeds" alert-version '\x01\x15\x03\x01\x00\x02\x02\x46'
    seed "$seeds" server-hello "\\x02\\x16\\x03\\x03\\x00\\x2a\\x02\\x00\\x00\\x26\\x03\\x03${random}\\x00\\x13\\x01\\x00"
    seed "$seeds" too-long '\x03\x17\x03\x03\xff\xff'
    seed "$seeds" http '\x04HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'
}

# The TLS server's harness: byte 0 seeds the split; the rest is what a client sends. The server's certificate and
# key are made once; the harness itself writes our own client's ClientHellos and whole handshakes' client sides
# (TLSSERVER_FUZZ_SEEDS, Fuzz/TLSServerFuzzer.swift); these add what a client must be refused for: an HTTP request,
# an SSL 2 hello, an alert, a record header announcing 64 KiB, a ChangeCipherSpec and a heartbeat before any hello.
tlsserver_seeds() {
    local seeds=$1 dir="$root/tlsserver"
    export TLSSERVER_FUZZ_CERT="$dir/server.pem" TLSSERVER_FUZZ_KEY="$dir/server.key"
    if [ ! -s "$TLSSERVER_FUZZ_CERT" ] || [ ! -s "$TLSSERVER_FUZZ_KEY" ]; then
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj /CN=localhost \
            -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$TLSSERVER_FUZZ_KEY" -out "$TLSSERVER_FUZZ_CERT" \
            >"$dir/openssl.log" 2>&1 || { echo "fuzz tlsserver: openssl made no certificate; see $dir/openssl.log" >&2; return 1; }
    fi
    TLSSERVER_FUZZ_SEEDS="$seeds" SWIFT_BACKTRACE=enable=no "$root/tlsserver-fuzzer" -runs=0 >"$dir/seeds.log" 2>&1 \
        || { echo "fuzz tlsserver: the harness wrote no seeds; see $dir/seeds.log" >&2; return 1; }
    seed "$seeds" http '\x05GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n'
    seed "$seeds" sslv2 '\x04\x80\x2e\x01\x03\x01\x00\x15\x00\x00\x00\x10\x00\x00\x39\x00\x00\x38\x00\x00\x35\x00\x00\x16\x00\x00\x13\x00\x00\x0a\x00\x00\xff\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10'
    seed "$seeds" alert '\x00\x15\x03\x03\x00\x02\x02\x30'
    seed "$seeds" too-long '\x03\x16\x03\x01\xff\xff\x01'
    seed "$seeds" ccs-first '\x01\x14\x03\x03\x00\x01\x01'
    seed "$seeds" heartbeat '\x02\x18\x03\x03\x00\x03\x01\x40\x00'
}

# ---------------------------------------------------------------------------------------------
# Fuzz one target; its exit status is libFuzzer's.

fuzz() {
    local target=$1 binary="$root/$1-fuzzer" dir="$root/$1"
    local -n options="${target}_options"
    local seeds="$dir/seeds" corpus="$dir/corpus" artifacts="$dir/artifacts" log="$dir/fuzz.log"
    mkdir -p "$corpus" "$artifacts"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    "${target}_seeds" "$seeds" || return 1

    echo "fuzz $target: $seconds s, corpus $corpus ($(find "$corpus" -type f | wc -l) inputs), seeds $seeds ($(find "$seeds" -type f | wc -l) inputs)" >&2
    local started status elapsed executions rate coverage features corpus_size artifact demangle
    started=$(date +%s)
    set +e
    SWIFT_BACKTRACE=enable=no "$binary" \
        -max_total_time="$seconds" \
        "${options[@]}" \
        -rss_limit_mb=2048 \
        -timeout=5 \
        -print_final_stats=1 \
        -artifact_prefix="$artifacts/" \
        "$corpus" "$seeds" >"$log" 2>&1
    status=$?
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
        echo "fuzz $target: FINDING (libFuzzer exit $status) after ${executions:-?} executions in $elapsed s; log in $log" >&2
        # The trap's reason and the frames in this project's code, demangled (libFuzzer's full report is in the log).
        grep -m 3 -E 'Fatal error|runtime failure' "$log" | sed 's/^/fuzz:   /' >&2 || true
        demangle=cat
        if command -v swift-demangle >/dev/null 2>&1; then demangle="swift-demangle --simplified"; fi
        sed -n '/ERROR: /,/^SUMMARY: /p' "$log" | grep -E '^ *#[0-9]+ ' | $demangle \
            | grep -E 'Sources/|Fuzz/|runtime failure' | sed 's/^ */fuzz:   /' >&2 || true
        if [ -n "$artifact" ] && [ -f "$artifact" ]; then
            echo "fuzz $target: the input is $artifact ($(wc -c <"$artifact") bytes, first byte $(od -An -tu1 -N1 "$artifact" | tr -d ' '))" >&2
            { od -An -v -tx1 "$artifact" | tr -d ' \n' | fold -w 64; echo; } | head -n 20 | sed 's/^/fuzz:   hex /' >&2
            echo "fuzz $target: reproduce with: SWIFT_BACKTRACE=enable=no $binary $artifact" >&2
        else
            echo "fuzz $target: libFuzzer wrote no input file; see the log" >&2
        fi
        return "$status"
    fi
    echo "fuzz $target: ${executions:-?} executions in $elapsed s (${rate:-?} exec/s), coverage ${coverage:-?} edges / ${features:-?} features, corpus $corpus_size inputs: no finding"
}

failed=0
for target in "${targets[@]}"; do
    build "$target"
done
for target in "${targets[@]}"; do
    fuzz "$target" || failed=$?
done
exit "$failed"
