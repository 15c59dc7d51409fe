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

    public init(_ setup: Setup, transport: any HTTPTransport = SocketHTTPTransport(),
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

    /// Runs every check that applies, in `Check.Name` order. Without a first answer only `reachable` (and for https://
    /// the TLS checks) is reported; without a token in it, the checks of its token are left out.
    public func run() async -> [Check] {
        guard let request = try? tokenRequest() else {
            return [.failed(.reachable, "the request shape cannot carry \(setup.request.user)", fix: "choose another --token-request")]
        }
        // Beside the others: a plain http:// port that drops packets takes the whole deadline to say nothing.
        async let tls = tlsChecks()
        let reply: Reply
        switch await send(request) {
        case .failure(let failure):
            return [.failed(.reachable, failure.words, fix: "check the URL and that the server runs; the other checks need an answer")] + (await tls)
        case .success(let first):
            reply = first
        }
        let receivedAt = unixTime()
        var checks: [Check] = [.passed(.reachable, "HTTP \(reply.status) in \(reply.elapsed.millisecondsText)")]
        var first: AgoraToken?
        switch readToken(reply) {
        case .failed(let failed):
            checks.append(reply.status == 404 ? await suggestingShape(failed) : failed)
        case .fetched(let fetched):
            first = fetched.token
            checks += tokenChecks(fetched, reply: reply, receivedAt: receivedAt)
        }
        async let renewal = renewalCheck(request, first: first)
        checks.append(await latencyCheck(request))
        if let ping = await pingCheck() { checks.append(ping) }
        if let badInput = await badInputCheck() { checks.append(badInput) }
        if let cors = await corsCheck(request) { checks.append(cors) }
        // The stampede comes last, so that no other check's request meets a server busy with it (or rate-limiting us).
        if let renewal = await renewal { checks.append(renewal) }
        checks.append(await stampedeCheck(request))
        checks += await tls
        let order = Check.Name.allCases
        return checks.sorted { order.firstIndex(of: $0.name)! < order.firstIndex(of: $1.name)! }
    }
}

extension Duration {
    /// "12 ms", "1500 ms".
    var millisecondsText: String { "\(wholeMilliseconds) ms" }
}
