import Foundation
import HTTP1
import TokenClient

/// One HTTP answer as the doctor saw it.
struct Reply: Sendable {
    let reply: HTTPReply
    let elapsed: Duration

    var status: Int { reply.status }
    var data: [UInt8] { reply.body }
    var isSuccess: Bool { (200..<300).contains(status) }

    func header(_ name: String) -> String? { reply.header(name) }

    /// An HTML page, by its type or its first character: what a catch-all route answers to any path.
    var isWebPage: Bool { HTTPTokenProvider.isWebPage(reply) }

    /// `HTTP 500, "<html><body>Bad…"`: the status and the start of the body, too short to hold a whole token.
    var excerpt: String {
        let text = String(decoding: data.prefix(200), as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !text.isEmpty else { return "HTTP \(status), empty" }
        return "HTTP \(status), \"" + (text.count > Reply.excerptLength ? String(text.prefix(Reply.excerptLength)) + "…" : text) + "\""
    }

    /// Characters of a body quoted in a finding: a token is longer, so none is ever printed whole.
    static let excerptLength = 48
}

/// Why a request got no answer (or no token), in words.
struct NoReply: Error {
    let words: String
}

extension Doctor {
    /// Sends `request` with the deadline over the whole exchange, on a connection kept for the next one; with
    /// `onNewConnection`, on one of its own (when the transport can), for the checks that measure what a client that has
    /// none open meets.
    func send(_ request: HTTPRequest, onNewConnection: Bool = false) async -> Result<Reply, NoReply> {
        let started = ContinuousClock.now
        let (transport, timeout) = (transport, setup.timeout)
        do {
            let answer = try await withThrowingTaskGroup(of: HTTPReply?.self) { group in
                group.addTask {
                    if onNewConnection, let probe = transport as? any ServerProbe {
                        return try await probe.sendOnNewConnection(request, bodyLimit: HTTPTokenProvider.bodyLimit).reply
                    }
                    return try await transport.send(request, bodyLimit: HTTPTokenProvider.bodyLimit).reply
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard case let answer?? = try await group.next() else { throw TokenClientError.timeout(timeout) }
                return answer
            }
            return .success(Reply(reply: answer, elapsed: ContinuousClock.now - started))
        } catch let error as TokenClientError {
            return .failure(NoReply(words: error.description))
        } catch {
            return .failure(NoReply(words: TokenClientError.transport(HTTPTokenProvider.words(for: error)).description))
        }
    }
}
