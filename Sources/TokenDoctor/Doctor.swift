import AccessToken
import Foundation
import HTTP1
import Timers
import TokenClient

/// Checks a token server for the mistakes users meet most, through the requests a client of its shape sends.
public struct Doctor: Sendable {
    /// What to ask the server, and what to check its tokens against.
    public struct Setup: Sendable {
        public var url: URL
        public var shape: HTTPTokenProvider.Shape
        /// The channel, user and role to ask for; with an App ID, tokens are checked against it.
        public var request: TokenRequest
        /// When given, each token's signature is checked with it (it is never sent or printed).
        public var appCertificate: String?
        public var bearer: String?
        /// A browser app's origin: sent as `Origin` on every request, as that app sends it, and checked by CORS.
        public var origin: String?
        /// The lifetime a shape with `{expire}` asks for, in seconds.
        public var requestedLifetime: UInt32
        /// The deadline of one exchange.
        public var timeout: Duration
        /// A p99 above this fails the latency check: a renewal waits on it.
        public var slowestP99: Duration
        /// For an https:// URL, where plain http:// is asked whether it redirects; nil for the URL's host on port 80.
        public var plainURL: URL?

        public init(url: URL, shape: HTTPTokenProvider.Shape, request: TokenRequest, appCertificate: String? = nil,
                    bearer: String? = nil, origin: String? = nil, requestedLifetime: UInt32 = 3600, timeout: Duration = .seconds(10),
                    slowestP99: Duration = .milliseconds(Doctor.slowestP99Milliseconds), plainURL: URL? = nil) {
            self.url = url
            self.shape = shape
            self.request = request
            self.appCertificate = appCertificate
            self.bearer = bearer
            self.origin = origin
            self.requestedLifetime = requestedLifetime
            self.timeout = timeout
            self.slowestP99 = slowestP99
            self.plainURL = plainURL
        }
    }

    /// The p99 above which the latency check fails, unless told otherwise: renewals start 30 s before expiry.
    public static let slowestP99Milliseconds = 2000
    /// Requests the latency check sends one after another.
    public static let latencyRequests = 20
    /// Requests the stampede check sends at once, as clients whose tokens expire together renew together.
    public static let stampedeRequests = 50
    /// The renewal check's second request waits this long after the first answer, so its token is issued a second later.
    static let renewalGap: Duration = .milliseconds(1100)

    public let setup: Setup
    let transport: any HTTPTransport
    let provider: HTTPTokenProvider
    let unixTime: @Sendable () -> Double

    public init(_ setup: Setup, transport: any HTTPTransport = LoopHTTPTransport(),
                unixTime: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.setup = setup
        self.transport = transport
        self.unixTime = unixTime
        provider = HTTPTokenProvider(url: setup.url, shape: setup.shape, requestedLifetime: setup.requestedLifetime, bearer: setup.bearer,
                                     origin: setup.origin, transport: transport)
    }

    /// The request a client of this shape sends for what was asked; throws when the shape cannot carry it.
    public func tokenRequest() throws(TokenClientError) -> HTTPRequest {
        try provider.httpRequest(for: setup.request)
    }

    /// Runs every check that applies, in `Check.Name` order. A check that needs what a failed one was to show (an answer,
    /// a token) is skipped because of it, so one cause fails one check: the handshake (for https://), `reachable`,
    /// `answer`, or `token`.
    public func run() async -> [Check] {
        guard let request = try? tokenRequest() else {
            return [.failed(.reachable, "the request shape cannot carry \(setup.request.user)", fix: "choose another --token-request")]
        }
        // Beside the others: a plain http:// port that drops packets takes the whole deadline to say nothing.
        async let tls = tlsChecks()
        let reply: Reply
        switch await send(request) {
        case .failure(let failure):
            let (tlsChecks, refused) = await tls
            // A refused handshake is why nothing answered: `reachable` would only say it again.
            let reachable: [Check] = refused == nil ? [.failed(.reachable, failure.words, fix: "check the URL and that the server runs")] : []
            return skipping(reachable + tlsChecks, because: refused ?? .reachable)
        case .success(let first):
            reply = first
        }
        let receivedAt = unixTime()
        var checks: [Check] = [.passed(.reachable, "HTTP \(reply.status) in \(reply.elapsed.millisecondsText)")]
        let fetched: FetchedAnswer
        switch readToken(reply) {
        case .failed(let failed) where failed.name == .answer:
            // Every other request is this one again, or needs it answered: they would fail for the same reason.
            checks.append(reply.status == 404 ? await suggestingShape(failed) : failed)
            return skipping(checks + (await tls).checks, because: .answer)
        case .failed(let failed):
            // The answer held something where the token goes, but not a token: the checks of a token have none to check.
            if let answer = try? provider.readAnswer(reply.reply) { checks.append(Self.answerCheck(answer)) }
            checks.append(failed)
            checks.append(await latencyCheck(request))
            checks += await probeChecks(request)
            return skipping(checks + (await tls).checks, because: failed.name)
        case .fetched(let first):
            fetched = first
        }
        checks += tokenChecks(fetched, reply: reply, receivedAt: receivedAt)
        async let renewal = renewalCheck(request, first: fetched.token)
        checks.append(await latencyCheck(request))
        checks += await probeChecks(request)
        // The stampede comes last, so that no other check's request meets a server busy with it (or rate-limiting us).
        checks.append(await renewal)
        checks.append(await stampedeCheck(request))
        return skipping(checks + (await tls).checks, because: nil)
    }

    /// `ping`, `bad-input` and `cors`, those that apply.
    private func probeChecks(_ request: HTTPRequest) async -> [Check] {
        var checks: [Check] = []
        if let ping = await pingCheck() { checks.append(ping) }
        if let badInput = await badInputCheck() { checks.append(badInput) }
        if let cors = await corsCheck(request) { checks.append(cors) }
        return checks
    }

    /// The checks that apply to this setup: the `tls-…` ones and `https-redirect` for https://, `ping` for a shape that
    /// has one, `signature` with a certificate, `bad-input` when the shape carries a probe, `cors` with an origin.
    var applicable: [Check.Name] {
        Check.Name.allCases.filter { name in
            switch name {
            case .tlsVersion, .tlsChain, .tlsName, .tlsExpiry, .httpsRedirect: probesTLS
            case .ping: setup.shape.hasPing
            case .signature: setup.appCertificate != nil
            case .badInput: !badInputProbes.isEmpty
            case .cors: setup.origin != nil
            default: true
            }
        }
    }

    /// `checks` with each applicable check that did not run skipped because of `cause`, in `Check.Name` order.
    private func skipping(_ checks: [Check], because cause: Check.Name?) -> [Check] {
        let ran = Set(checks.map(\.name))
        let skipped = cause.map { cause in applicable.filter { !ran.contains($0) }.map { Check($0, .skipped(because: cause)) } } ?? []
        let order = Check.Name.allCases
        return (checks + skipped).sorted { order.firstIndex(of: $0.name)! < order.firstIndex(of: $1.name)! }
    }
}

extension Duration {
    /// "12 ms", "1500 ms".
    var millisecondsText: String { "\(wholeMilliseconds) ms" }
}
