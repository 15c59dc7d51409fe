import AccessToken
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TokenClient

extension Doctor {
    /// A second token, fetched more than a second after the first, must expire later: a server that computes the expiry
    /// once hands every client the same one, and every call loses its token in the same second. Nil without a first token.
    func renewalCheck(_ request: URLRequest, first: AgoraToken?) async -> Check? {
        guard let first else { return nil }
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

    /// The shape's request `latencyRequests` times in a row: each answered, the p99 within `setup.slowestP99`.
    func latencyCheck(_ request: URLRequest) async -> Check {
        var times: [Duration] = []
        var failures: [String] = []
        for _ in 0..<Self.latencyRequests {
            switch await send(request) {
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
        var base = setup.url
        if setup.shape.urlMayBeEndpoint, !(base.path.isEmpty || base.path == "/") { base.deleteLastPathComponent() }
        var request = URLRequest(url: base.appendingPathComponent("ping"))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch await send(request) {
        case .success(let reply) where reply.isSuccess:
            return .passed(.ping, "GET \(request.url?.path ?? "/ping"): HTTP \(reply.status)")
        case .success(let reply):
            return .failed(.ping, "GET \(request.url?.path ?? "/ping"): \(reply.excerpt)",
                           fix: "answer GET /ping with 200 ({\"message\": \"pong\"}) for health checks, as agora-token-service does")
        case .failure(let failure):
            return .failed(.ping, "GET /ping: \(failure.words)", fix: "answer GET /ping with 200 for health checks")
        }
    }

    /// `stampedeRequests` requests at once, as when every client's token expires in the same second: each gets a token.
    func stampedeCheck(_ request: URLRequest) async -> Check {
        let outcomes = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<Self.stampedeRequests {
                group.addTask {
                    if case .failure(let failure) = await fetchToken(request) { return failure.words }
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

    /// An out-of-range uid and an empty channel must get a 4xx, not a token.
    func badInputCheck() async -> Check {
        var probes: [(String, URLRequest)] = []
        // The shape's request for the largest uid, with that number made one too large wherever the shape put it.
        let largest = String(UInt32.max), tooLarge = String(UInt64(UInt32.max) + 1)
        var high = setup.request
        high.user = .uid(UInt32.max)
        if var request = try? provider.httpRequest(for: high) {
            let url = request.url?.absoluteString.replacingOccurrences(of: largest, with: tooLarge)
            request.url = url.flatMap { URL(string: $0) }
            request.httpBody = request.httpBody.map { Data(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: largest, with: tooLarge).utf8) }
            probes.append(("uid \(tooLarge)", request))
        }
        var empty = setup.request
        empty.channel = ""
        if let request = try? provider.httpRequest(for: empty) { probes.append(("an empty channel", request)) }
        var findings: [String] = []
        for (input, request) in probes {
            switch await send(request) {
            case .success(let reply) where (400..<500).contains(reply.status): continue
            case .success(let reply) where reply.isSuccess:
                findings.append("\(input) got a token (HTTP \(reply.status))")
            case .success(let reply): findings.append("\(input) got \(reply.excerpt)")
            case .failure(let failure): findings.append("\(input): \(failure.words)")
            }
        }
        guard findings.isEmpty else {
            return .failed(.badInput, findings.joined(separator: "; "),
                           fix: "refuse a uid outside 0...4294967295 and a channel outside Agora's rules with a 400 saying what is wrong; "
                               + "a uid wrapped to 0 makes a token for any user")
        }
        return .passed(.badInput, probes.map(\.0).joined(separator: " and ") + " got a 4xx")
    }
}
