-- wrk script for the token-server benchmark (Scripts/bench-server.sh): every request is the same
-- POST /fetch_rtc_token of Agora's guide, on kept-alive connections.
--
-- At the end it prints one line that the bench script reads:
--   BENCH requests=N duration_us=N p50_us=N p99_us=N max_us=N connect=N read=N write=N timeout=N status=N other=N
-- `status` is wrk's own count of answers with a status of 400 or more; `other` counts the remaining
-- answers that are not 2xx (1xx and 3xx), which wrk does not count. Together they are the non-2xx answers.

wrk.method = "POST"
wrk.path = "/fetch_rtc_token"
wrk.body = '{"uid": 42, "channelName": "bench", "role": 1}'
wrk.headers["Content-Type"] = "application/json"

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    other = 0
end

function response(status, headers, body)
    if status < 200 or (status >= 300 and status < 400) then
        other = other + 1
    end
end

function done(summary, latency, requests)
    local others = 0
    for _, thread in ipairs(threads) do
        others = others + thread:get("other")
    end
    local errors = summary.errors
    io.write(string.format(
        "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d connect=%d read=%d write=%d timeout=%d status=%d other=%d\n",
        summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
        errors.connect, errors.read, errors.write, errors.timeout, errors.status, others))
end
