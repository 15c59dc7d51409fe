import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Doctor {
    /// Methods a browser sends without asking the preflight about them (Fetch's CORS-safelisted methods).
    static let safelistedMethods: Set<String> = ["GET", "HEAD", "POST"]

    /// With `--origin`: the preflight a browser app at that origin sends before the shape's request allows the origin,
    /// the method and the headers, and the answer itself allows the origin.
    func corsCheck(_ request: URLRequest) async -> Check? {
        guard let origin = setup.origin, let url = request.url else { return nil }
        let method = request.httpMethod ?? "GET"
        // What a browser app adds of its own that a preflight must allow (not tokencall's Accept and Cache-Control).
        let headers: [String] = (request.httpBody == nil ? [] : ["Content-Type"]) + (setup.bearer == nil ? [] : ["Authorization"])
        var preflight = URLRequest(url: url)
        preflight.httpMethod = "OPTIONS"
        preflight.setValue(origin, forHTTPHeaderField: "Origin")
        preflight.setValue(method, forHTTPHeaderField: "Access-Control-Request-Method")
        if !headers.isEmpty { preflight.setValue(headers.joined(separator: ", ").lowercased(), forHTTPHeaderField: "Access-Control-Request-Headers") }
        var findings: [String] = []
        switch await send(preflight) {
        case .failure(let failure):
            findings.append("the preflight (OPTIONS): \(failure.words)")
        case .success(let reply) where !reply.isSuccess:
            findings.append("the preflight (OPTIONS) got \(reply.excerpt)")
        case .success(let reply):
            if let problem = Self.originProblem(reply, origin) { findings.append("the preflight's \(problem)") }
            let methods = Self.list(reply.header("Access-Control-Allow-Methods"))
            if !Self.safelistedMethods.contains(method), !methods.contains(method.lowercased()), !methods.contains("*") {
                findings.append("the preflight does not allow \(method)")
            }
            let allowed = Self.list(reply.header("Access-Control-Allow-Headers"))
            let missing = headers.filter { header in
                !allowed.contains(header.lowercased()) && !(allowed.contains("*") && header != "Authorization")
            }
            if !missing.isEmpty { findings.append("the preflight does not allow the header \(missing.joined(separator: ", "))") }
        }
        var answered = request
        answered.setValue(origin, forHTTPHeaderField: "Origin")
        switch await send(answered) {
        case .failure(let failure): findings.append("the request with Origin: \(failure.words)")
        case .success(let reply): if let problem = Self.originProblem(reply, origin) { findings.append("the token answer's \(problem)") }
        }
        guard findings.isEmpty else {
            let fix = "answer OPTIONS with Access-Control-Allow-Origin: \(origin), -Methods: \(method) and -Headers: "
                + (headers.isEmpty ? "(none needed)" : headers.joined(separator: ", "))
                + ", and send Access-Control-Allow-Origin on the token answer too (tokencall serve: --cors-origin)"
            return .failed(.cors, findings.joined(separator: "; "), fix: fix)
        }
        return .passed(.cors, "\(origin) may send \(method)" + (headers.isEmpty ? "" : " with \(headers.joined(separator: ", "))"))
    }

    /// Why an answer's Access-Control-Allow-Origin does not let `origin` read it; nil when it does.
    private static func originProblem(_ reply: Reply, _ origin: String) -> String? {
        guard let allowed = reply.header("Access-Control-Allow-Origin") else { return "HTTP \(reply.status) has no Access-Control-Allow-Origin" }
        guard allowed == origin || allowed == "*" else {
            return "Access-Control-Allow-Origin is \"\(allowed.prefix(Reply.excerptLength))\", not \(origin)"
        }
        return nil
    }

    /// A comma-separated header value, lowercased.
    private static func list(_ value: String?) -> Set<String> {
        Set((value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}
