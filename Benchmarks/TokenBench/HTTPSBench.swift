import Foundation
import HTTP1
import TokenClient

/// The bound on one https:// token request from `join` on loopback, handshake included (issue 21).
let httpsTargetMilliseconds = 5.0

/// `tokencall-bench --https URL --ca-file FILE [--results PATH]`: times 200 sequential https:// requests through
/// `join`'s transport (a new connection and TLS handshake each), prints the median and records it against the bound.
func httpsBench(_ arguments: [String]) async -> Never {
    var url: URL?, caFile: String?, resultsPath: String?
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--https": url = rest.popFirst().flatMap(URL.init(string:))
        case "--ca-file": caFile = rest.popFirst()
        case "--results": resultsPath = rest.popFirst()
        default: fail("unknown argument \(argument); usage: tokencall-bench --https URL --ca-file FILE [--results PATH]", status: 2)
        }
    }
    guard let url, let caFile else { fail("usage: tokencall-bench --https URL --ca-file FILE [--results PATH]", status: 2) }
    let transport = LoopHTTPTransport(userAgent: "tokencall-bench", trust: .file(caFile))
    var samples: [Double] = []
    for round in 0..<220 {
        let start = ContinuousClock.now
        do {
            let (reply, _) = try await transport.sendOnNewConnection(HTTPRequest(url: url), bodyLimit: 65536)
            guard reply.status == 200 else { fail("\(url) answered HTTP \(reply.status)") }
        } catch {
            fail("the https:// request failed: \(error)")
        }
        if round >= 20 { samples.append(nanoseconds(ContinuousClock.now - start) / 1e6) }
    }
    samples.sort()
    let median = samples[samples.count / 2], p99 = samples[samples.count * 99 / 100]
    let met = median <= httpsTargetMilliseconds
    print(String(format: "https_token_request  p50 %.2f ms  p99 %.2f ms  target <= %g ms  %@", median, p99, httpsTargetMilliseconds,
                 met ? "yes" : "NO"))
    if let resultsPath {
        let file = URL(fileURLWithPath: resultsPath)
        var results = (try? Data(contentsOf: file)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        results["https_token_request"] = ["value": rounded(median, decimals: 2), "p99": rounded(p99, decimals: 2), "unit": "ms",
                                          "target": "<= \(httpsTargetMilliseconds) ms", "met": met] as [String: Any]
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]).write(to: file)
        } catch {
            fail("could not write \(resultsPath): \(error)")
        }
    }
    exit(met ? 0 : missedTargetStatus)
}
