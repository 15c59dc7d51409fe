import Foundation
import HTTP1
import PrintableText
import TLS
import TokenClient

extension Doctor {
    /// Days before its end at which a certificate fails the expiry check, and at which it warns.
    static let expiryFailDays: Int64 = 7
    static let expiryWarnDays: Int64 = 30

    /// Whether the TLS checks apply: an https:// URL, over a transport that can probe (the socket one).
    var probesTLS: Bool { setup.url.scheme?.lowercased() == "https" && transport is any ServerProbe }

    /// For an https:// URL over a transport that can probe: the TLS version, the chain, the name and the expiry from a
    /// handshake of its own, and whether plain http:// at the same host redirects to https. A refused handshake fails
    /// the one check it is about, `refused`; the others are then left out. Empty for http://.
    func tlsChecks() async -> (checks: [Check], refused: Check.Name?) {
        guard probesTLS, let probe = transport as? any ServerProbe else { return ([], nil) }
        var checks: [Check]
        var refused: Check.Name?
        do {
            checks = certificateChecks(try await probe.tlsFacts(of: setup.url, within: setup.timeout))
        } catch let failure as TLSFailure {
            let check = refusedHandshake(failure)
            (checks, refused) = ([check], check.name)
        } catch {
            // No handshake at all (connection refused, no answer): `reachable` says why.
            checks = []
        }
        checks.append(await redirectCheck(probe))
        return (checks, refused)
    }

    private var host: String { (setup.url.host ?? "").escapedForPrinting }

    private func certificateChecks(_ facts: TLSFacts) -> [Check] {
        let version = Check.passed(.tlsVersion, "\(facts.version.escapedForPrinting) agreed (tokencall needs TLS 1.2 or later)")
        guard let certificate = facts.certificate else {
            return [version, .failed(.tlsChain, "the server sent no certificate", fix: Self.serveTheChain)]
        }
        return [
            version,
            .passed(.tlsChain, "the chain from \(certificate.subject) to \(certificate.issuer) verifies"),
            .passed(.tlsName, "the certificate is for \(host): it names \(certificate.names)"),
            expiryCheck(certificate),
        ]
    }

    /// Fails within `expiryFailDays` of the certificate's end, warns within `expiryWarnDays`.
    func expiryCheck(_ certificate: TLSCertificate) -> Check {
        guard let left = certificate.secondsLeft else { return .passed(.tlsExpiry, "valid until \(certificate.notAfter)") }
        let days = Self.wholeDays(left)
        let when = "the certificate expires on \(certificate.notAfter), in \(days) \(days == 1 ? "day" : "days")"
        if days < Self.expiryFailDays {
            return .failed(.tlsExpiry, when + " (less than \(Self.expiryFailDays))",
                           fix: "renew it now: once it ends every client refuses the server; automate renewal (certbot renew, or the host's managed certificates)")
        }
        if days < Self.expiryWarnDays {
            return .warned(.tlsExpiry, when + " (less than \(Self.expiryWarnDays))",
                           fix: "renew it before then, and automate renewal (certbot renew, or the host's managed certificates)")
        }
        return .passed(.tlsExpiry, "valid until \(certificate.notAfter), \(days) days from now")
    }

    /// Whole days in `seconds`, rounded down (towards the past for a negative count): "in 89 days" promises at least 89
    /// days, so the count never claims time that is not there, stays the same all day between two whole days, and is
    /// the number the thresholds compare. A certificate issued for 90 days shows 90 only within the second it was
    /// issued.
    static func wholeDays(_ seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
    }

    static let serveTheChain = "serve the certificate with its intermediates (the full chain) from a CA clients trust; "
        + "for a private CA, give its certificate to tokencall with --ca-file"

    /// The check a refused handshake fails, in the refusal's words.
    private func refusedHandshake(_ failure: TLSFailure) -> Check {
        let words = failure.description
        switch failure {
        case .untrustedIssuer, .selfSigned, .certificate:
            return .failed(.tlsChain, words, fix: Self.serveTheChain)
        case .nameMismatch:
            return .failed(.tlsName, words, fix: "serve a certificate whose names include \(host), the host clients connect to")
        case .expired:
            return .failed(.tlsExpiry, words, fix: "renew the certificate: every client refuses the server until then; automate renewal")
        case .version:
            return .failed(.tlsVersion, words, fix: "enable TLS 1.2 and 1.3 on the server (or its proxy); older versions are refused by clients")
        case .handshakeRefused, .notTLS, .setup:
            return .failed(.tlsVersion, words, fix: "the TLS handshake must complete: check the server's (or its proxy's) TLS setup")
        }
    }

    /// Where plain http:// is asked for the redirect check: `setup.plainURL`, or the URL with http:// on port 80.
    var plainURL: URL? {
        if let plain = setup.plainURL { return plain }
        var components = URLComponents(url: setup.url, resolvingAgainstBaseURL: false)
        components?.scheme = "http"
        components?.port = nil
        components?.query = nil
        return components?.url
    }

    /// Plain http:// at the same host either answers with a redirect to https:// at that host, or not at all: a client
    /// that is given the http:// URL must not get tokens (or send its credential) in the clear.
    func redirectCheck(_ probe: any ServerProbe) async -> Check {
        guard let plain = plainURL else { return .failed(.httpsRedirect, "no http:// URL for \(host)", fix: "check the URL") }
        let shown = plain.absoluteString.urlWithoutCredentials.escapedForPrinting
        let request = HTTPRequest(url: plain, fields: [("Accept", "application/json"), ("Connection", "close")])
        let timeout = setup.timeout
        let reply: HTTPReply
        do {
            reply = try await withThrowingTaskGroup(of: HTTPReply?.self) { group in
                group.addTask { try await probe.sendOnce(request, bodyLimit: HTTPTokenProvider.bodyLimit) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard case let reply?? = try await group.next() else { throw TokenClientError.timeout(timeout) }
                return reply
            }
        } catch {
            let words = (error as? TokenClientError)?.description ?? "\(type(of: error))"
            return .passed(.httpsRedirect, "plain \(shown) gets no answer (\(words)), so nothing is served in the clear")
        }
        let fix = "answer plain http:// with a 301 (or 308) to the same path on https://\(host), or serve no plain http:// at all"
        guard [301, 302, 303, 307, 308].contains(reply.status), let location = reply.header("Location") else {
            return .failed(.httpsRedirect, "plain \(shown) answers HTTP \(reply.status) without a redirect to https://", fix: fix)
        }
        let target = URL(string: location, relativeTo: plain)?.absoluteURL
        let shownTarget = (target?.absoluteString ?? location).urlWithoutCredentials.escapedForPrinting
        guard target?.scheme?.lowercased() == "https", target?.host?.lowercased() == setup.url.host?.lowercased() else {
            return .failed(.httpsRedirect, "plain \(shown) redirects (HTTP \(reply.status)) to \(shownTarget), not to https://\(host)", fix: fix)
        }
        return .passed(.httpsRedirect, "plain \(shown) redirects (HTTP \(reply.status)) to \(shownTarget)")
    }
}
