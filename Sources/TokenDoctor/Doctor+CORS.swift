import Foundation
import HTTP1
import TokenClient

extension Doctor {
    /// Methods a browser sends without asking the preflight about them (Fetch's CORS-safelisted methods).
    static let safelistedMethods: Set<String> = ["GET", "HEAD", "POST"]

    /// With `--origin`: the preflight a browser app at that origin sends before the shape's request allows the origin,
    /// the method and the headers, and the answer itself allows the origin.
    func corsCheck(_ request: HTTPRequest) async -> Check? {
        guard let origin = setup.origin, let url = request.url else { return nil }
        let method = request.method
        // What a browser app adds of its own that a preflight must allow (not tokencall's Accept and Cache-Control).
        let headers: [String] = (request.body.isEmpty ? [] : ["Content-Type"]) + (setup.bearer == nil ? [] : ["Authorization"])
        var preflight = HTTPRequest(method: "OPTIONS", url: url, fields: [("Origin", origin), ("Access-Control-Request-Method", method)])
        if !headers.isEmpty { preflight.fields.append("Access-Control-Request-Headers", headers.joined(separator: ", ").lowercased()) }
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
        // The shape's request carries the Origin already, as the app's does.
        var answered = false, refused: [String] = []
        switch await send(request) {
        case .failure(let failure): refused.append("the request with Origin: \(failure.words)")
        case .success(let reply):
            answered = reply.isSuccess
            // Allowed to read a refusal is not allowed to get a token.
            if !answered { refused.append("the request with Origin got \(reply.excerpt)") }
            if let problem = Self.originProblem(reply, origin) { findings.append("the token answer's \(problem)") }
        }
        var fixes: [String] = []
        if !findings.isEmpty {
            fixes.append("answer OPTIONS with Access-Control-Allow-Origin: \(origin), -Methods: \(method) and -Headers: "
                + (headers.isEmpty ? "(none needed)" : headers.joined(separator: ", "))
                + ", and send Access-Control-Allow-Origin on the token answer too (tokencall serve: --cors-origin)")
        }
        if !refused.isEmpty {
            findings = refused + findings
            fixes.append("answer the token request from \(origin) with a token")
        }
        if answered, let refusal = await refusalWithoutOrigin(request) {
            findings.append("without an Origin (a native app's request): \(refusal.said)")
            fixes += refusal.toDo.map { [$0] } ?? []
        }
        guard findings.isEmpty else { return .failed(.cors, findings.joined(separator: "; "), fix: fixes.joined(separator: "; ")) }
        return .passed(.cors, "\(origin) may send \(method)" + (headers.isEmpty ? "" : " with \(headers.joined(separator: ", "))"))
    }

    /// How the server refuses `request` sent without its Origin, when it refuses it for that (a native app sends none).
    private func refusalWithoutOrigin(_ request: HTTPRequest) async -> (said: String, toDo: String?)? {
        var native = request
        native.fields.set("Origin", nil)
        guard case .success(let reply) = await send(native) else { return nil }
        let reader = HTTPTokenProvider(url: setup.url, shape: setup.shape, bearer: setup.bearer, transport: transport)
        do throws(TokenClientError) {
            _ = try reader.readAnswer(reply.reply)
            return nil
        } catch {
            guard case .originRequired = error else { return nil }
            return error.refusal
        }
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
