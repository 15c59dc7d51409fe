import AccessToken
import Foundation
import HTTP1
import TokenClient

extension Doctor {
    /// A second token, fetched more than a second after the first, must expire later: a server that computes the expiry
    /// once hands every client the same one, and every call loses its token in the same second.
    func renewalCheck(_ request: HTTPRequest, first: AgoraToken) async -> Check {
        try? await Task.sleep(for: Self.renewalGap)
        let second: AgoraToken
        switch await fetchToken(request) {
        case .failure(let failure): return .failed(.renewal, "the second request: \(failure.words)", fix: Self.answerEveryRequest)
        case .success(let token): second = token
        }
        let (before, after) = (first.joinDeadline, second.joinDeadline)
        let gap = "fetched \(Self.renewalGap.millisecondsText) apart"
        guard after > before else {
            let when = after == before ? "both expire at \(UnixTime.iso8601(after))" : "the second expires \(before - after) s earlier"
            return .failed(.renewal, "two tokens \(gap): \(when); every client gets the same expiry, so every call loses its token at once",
                           fix: "compute the expiry on each request (now + lifetime), not once at start-up, and do not hand out a cached token")
        }
        return .passed(.renewal, "two tokens \(gap): the second expires \(after - before) s later")
    }

    /// The shape's request `latencyRequests` times in a row, each on a new connection as a client renewing meets it
    /// (the connect and the TLS handshake included): each answered, the p99 within `setup.slowestP99`.
    func latencyCheck(_ request: HTTPRequest) async -> Check {
        var times: [Duration] = []
        var failures: [String] = []
        for _ in 0..<Self.latencyRequests {
            switch await send(request, onNewConnection: true) {
            case .success(let reply) where reply.isSuccess: times.append(reply.elapsed)
            case .success(let reply): failures.append(reply.excerpt)
            case .failure(let failure): failures.append(failure.words)
            }
        }
        if let first = failures.first {
            return .failed(.latency, "\(failures.count) of \(Self.latencyRequests) requests failed, the first: \(first)",
                           fix: Self.answerEveryRequest)
        }
        times.sort()
        let (p50, p99) = (times[(times.count - 1) / 2], times[(times.count * 99 + 99) / 100 - 1])
        let figures = "p50 \(p50.millisecondsText), p99 \(p99.millisecondsText) over \(times.count) requests"
        guard p99 <= setup.slowestP99 else {
            return .failed(.latency, "\(figures), slower than \(setup.slowestP99.millisecondsText)",
                           fix: "a renewal waits on it: build tokens without waiting on other services, and keep the server near its clients")
        }
        return .passed(.latency, figures)
    }

    /// `GET /ping`, for the shapes of servers that have one (the community servers').
    func pingCheck() async -> Check? {
        guard setup.shape.hasPing else { return nil }
        let request = provider.pingRequest
        switch await send(request) {
        case .success(let reply) where reply.isSuccess && reply.isWebPage:
            return .failed(.ping, "GET \(request.url?.path ?? "/ping"): \(reply.excerpt), a web page such as a catch-all route answers any path with",
                           fix: "answer GET /ping with 200 ({\"message\": \"pong\"}) for health checks, as agora-token-service does")
        case .success(let reply) where reply.isSuccess:
            return .passed(.ping, "GET \(request.url?.path ?? "/ping"): HTTP \(reply.status)")
        case .success(let reply):
            return .failed(.ping, "GET \(request.url?.path ?? "/ping"): \(reply.excerpt)",
                           fix: "answer GET /ping with 200 ({\"message\": \"pong\"}) for health checks, as agora-token-service does")
        case .failure(let failure):
            return .failed(.ping, "GET /ping: \(failure.words)", fix: "answer GET /ping with 200 for health checks")
        }
    }

    /// For a first answer that is a 404 from a server that answers `GET /ping` (it runs, but not at that path): the
    /// `answer` check with the named shapes whose request gets a token there as its fix (`HTTPTokenProvider.shapeHint`).
    func suggestingShape(_ failed: Check) async -> Check {
        guard case .failed(let seen, _) = failed.outcome,
              let hint = await provider.shapeHint(for: setup.request, send: { try? await send($0).get().reply }) else { return failed }
        return .failed(.answer, seen, fix: hint)
    }

    /// `stampedeRequests` requests at once, each on a connection of its own as from as many clients, as when every
    /// client's token expires in the same second: each gets a token.
    func stampedeCheck(_ request: HTTPRequest) async -> Check {
        let outcomes = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<Self.stampedeRequests {
                group.addTask {
                    if case .failure(let failure) = await fetchToken(request, onNewConnection: true) { return failure.words }
                    return nil
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        guard let first = outcomes.first else {
            return .passed(.stampede, "\(Self.stampedeRequests) requests at once, each answered with a token")
        }
        return .failed(.stampede, "\(outcomes.count) of \(Self.stampedeRequests) requests at once failed, the first: \(first)",
                       fix: "clients renew together when their tokens expire together: serve that many at once (connections, workers)")
    }

    /// Why the server did not accept `request` (answer it 2xx with a token where the shape puts it, sound or not); nil
    /// when it did.
    func refusal(of request: HTTPRequest) async -> String? {
        switch await send(request) {
        case .failure(let failure): return failure.words
        case .success(let reply):
            guard case .failed(let failed) = readToken(reply), failed.name == .answer else { return nil }
            return failed.finding
        }
    }

    /// Statuses that refuse a request for something other than its values: the credential, the time it took, the pace.
    static let refusalsOfAnotherKind: Set<Int> = [401, 407, 408, 429]

    /// One probe of the bad-input check: bad input, and the same request with good values.
    typealias BadInputProbe = (input: String, good: String, goodRequest: HTTPRequest, badRequest: HTTPRequest)

    /// The probes the shape can carry: an out-of-range uid, an empty channel.
    var badInputProbes: [BadInputProbe] {
        var probes: [BadInputProbe] = []
        // The shape's request for the largest uid, with that number made one too large wherever the shape put it.
        let largest = Array(String(UInt32.max).utf8), tooLarge = Array(String(UInt64(UInt32.max) + 1).utf8)
        var high = setup.request
        high.user = .uid(UInt32.max)
        if let good = try? provider.httpRequest(for: high) {
            var bad = good
            bad.target = String(decoding: Array(good.target.utf8).replacing(largest, with: tooLarge), as: UTF8.self)
            bad.body = good.body.replacing(largest, with: tooLarge)
            probes.append(("uid \(UInt64(UInt32.max) + 1)", "uid \(UInt32.max)", good, bad))
        }
        var empty = setup.request
        empty.channel = ""
        if let good = try? provider.httpRequest(for: setup.request), let bad = try? provider.httpRequest(for: empty) {
            probes.append(("an empty channel", "channel \"\(setup.request.channel)\"", good, bad))
        }
        return probes
    }

    /// An out-of-range uid and an empty channel must be refused for the input: each goes beside the same request with good
    /// values, which must get a token, so that a server refusing everything (403 or 404 for all) proves nothing. Nil
    /// when the shape can carry neither.
    func badInputCheck() async -> Check? {
        let probes = badInputProbes
        guard !probes.isEmpty else { return nil }
        var (notRefused, unjudged) = ([String](), [String]())
        for probe in probes {
            if let failure = await refusal(of: probe.goodRequest) {
                unjudged.append("cannot tell whether \(probe.input) is refused: the same request for \(probe.good) got no token either (\(failure))")
                continue
            }
            switch await send(probe.badRequest) {
            case .success(let reply) where (400..<500).contains(reply.status) && !Self.refusalsOfAnotherKind.contains(reply.status): continue
            case .success(let reply) where reply.isSuccess: notRefused.append("\(probe.input) got a token (HTTP \(reply.status))")
            case .success(let reply) where reply.status < 500: notRefused.append("\(probe.input) got \(reply.excerpt), which is not about the input")
            case .success(let reply): notRefused.append("\(probe.input) got \(reply.excerpt)")
            case .failure(let failure): notRefused.append("\(probe.input): \(failure.words)")
            }
        }
        guard notRefused.isEmpty, unjudged.isEmpty else {
            let fix = notRefused.isEmpty
                ? "answer the request with good values with a token; only then does refusing bad input show anything"
                : "refuse a uid outside 0...4294967295 and a channel outside Agora's rules with a 400 saying what is wrong; "
                    + "a uid wrapped to 0 makes a token for any user"
            return .failed(.badInput, (notRefused + unjudged).joined(separator: "; "), fix: fix)
        }
        return .passed(.badInput, probes.map(\.input).joined(separator: " and ") + " got a 4xx, and the same "
            + (probes.count == 1 ? "request" : "requests") + " with good values a token")
    }
}
