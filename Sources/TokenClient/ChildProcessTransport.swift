import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTransport` in a child process, one per request: an answer that FoundationNetworking traps on
/// (swift-corelibs-foundation #5285: a head cut by a clean close, a chunked trailer) ends the child and fails the
/// fetch, where in-process it would end tokencall.
///
/// The child is `executable` started with the request in the environment variable `variable` (not on its command
/// line, where `ps` shows a credential); it calls `answerIfChild()` first thing and writes the outcome to its output.
public struct ChildProcessTransport: HTTPTransport {
    /// The environment variable that carries the request to the child, and makes a process the child.
    public static let variable = "TOKENCALL_HTTP_EXCHANGE"

    private let executable: URL

    public init(executable: URL) {
        self.executable = executable
    }

    /// This very binary as the child (Linux's `/proc/self/exe`, resolved now so that it names the file).
    public static func ownBinary() -> ChildProcessTransport {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ChildProcessTransport(executable: URL(fileURLWithPath: path))
    }

    public func send(_ request: URLRequest, bodyLimit: Int) async throws -> (Data, HTTPURLResponse) {
        let asked = try JSONEncoder().encode(Asked(request, bodyLimit: bodyLimit))
        let process = Process()
        process.executableURL = executable
        process.environment = ProcessInfo.processInfo.environment.merging([Self.variable: asked.base64EncodedString()]) { $1 }
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let child = Child(process)
        do {
            try process.run()
        } catch {
            throw TokenClientError.transport("cannot start \(executable.lastPathComponent) to make the request: \(error)")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                child.start(continuation)
                DispatchQueue.global().async {
                    let written = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    child.finish(Result { try Self.outcome(written, process.terminationReason, process.terminationStatus) })
                }
            }
        } onCancel: {
            child.finish(.failure(CancellationError()))
        }
    }

    /// What the child's output and ending say.
    private static func outcome(_ written: Data, _ reason: Process.TerminationReason, _ status: Int32) throws -> (Data, HTTPURLResponse) {
        guard reason == .exit, status == 0, let outcome = try? JSONDecoder().decode(Outcome.self, from: written) else {
            guard reason == .uncaughtSignal else { throw TokenClientError.transport("the request's process failed (exit status \(status))") }
            throw TokenClientError.transport("the answer ended inside its head or carried a chunked trailer, which crashes Swift's "
                + "HTTP client on Linux (swift-corelibs-foundation #5285); check how the server frames its answers")
        }
        switch outcome {
        case .answer(let status, let url, let headers, let body):
            guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                throw TokenClientError.invalidResponse("HTTP status \(status)")
            }
            return (body, response)
        case .refused(let error):
            throw error
        case .failed(let code, let words):
            throw URLError(URLError.Code(rawValue: code) ?? .unknown, userInfo: [NSLocalizedDescriptionKey: words])
        }
    }

    /// In the child (when `variable` is set): makes the request, writes the outcome and exits; otherwise returns.
    public static func answerIfChild() async {
        guard let text = ProcessInfo.processInfo.environment[variable] else { return }
        guard let data = Data(base64Encoded: text), let asked = try? JSONDecoder().decode(Asked.self, from: data) else { exit(2) }
        let outcome: Outcome
        do {
            let (body, response) = try await URLSessionTransport().send(asked.request, bodyLimit: asked.bodyLimit)
            let headers = response.allHeaderFields.reduce(into: [String: String]()) { headers, field in
                if let name = field.key as? String, let value = field.value as? String { headers[name] = value }
            }
            outcome = .answer(status: response.statusCode, url: response.url ?? asked.url, headers: headers, body: body)
        } catch let error as TokenClientError {
            outcome = .refused(error)
        } catch let error as URLError {
            outcome = .failed(code: error.code.rawValue, words: error.userInfo[NSLocalizedDescriptionKey] as? String ?? "")
        } catch {
            outcome = .failed(code: URLError.Code.unknown.rawValue, words: "\(error)")
        }
        guard let written = try? JSONEncoder().encode(outcome) else { exit(2) }
        FileHandle.standardOutput.write(written)
        exit(0)
    }
}

/// The request as the child is given it.
private struct Asked: Codable {
    let method: String
    let url: URL
    let headers: [String: String]
    let body: Data?
    let bodyLimit: Int

    init(_ request: URLRequest, bodyLimit: Int) throws {
        guard let url = request.url else { throw TokenClientError.unsendable("the request has no URL") }
        method = request.httpMethod ?? "GET"
        self.url = url
        headers = request.allHTTPHeaderFields ?? [:]
        body = request.httpBody
        self.bodyLimit = bodyLimit
    }

    var request: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.allHTTPHeaderFields = headers
        request.httpBody = body
        return request
    }
}

/// How the child's exchange ended, as it tells the parent.
private enum Outcome: Codable {
    case answer(status: Int, url: URL, headers: [String: String], body: Data)
    case refused(TokenClientError)
    case failed(code: Int, words: String)
}

/// One child and the caller waiting for it; a cancel answers at once and ends the child.
private final class Child: Sendable {
    private let process: Process
    private let outcome = FirstOutcome()

    init(_ process: Process) {
        self.process = process
    }

    func start(_ continuation: CheckedContinuation<FirstOutcome.Answer, any Error>) {
        _ = outcome.start(continuation)
    }

    func finish(_ result: Result<FirstOutcome.Answer, any Error>) {
        guard outcome.finish(result) else { return }
        if process.isRunning { process.terminate() }
    }
}
