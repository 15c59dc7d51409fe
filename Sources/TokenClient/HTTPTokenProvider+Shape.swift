extension HTTPTokenProvider {
    /// How to ask a server for a token and where its answer holds it: a named shape, or a template of your own.
    public struct Shape: Sendable, Equatable, CustomStringConvertible {
        public let template: RequestTemplate
        /// Where the answer holds the token; nil reads `token`, else `rtcToken`.
        public var tokenField: FieldPath?
        /// Where the answer holds the token's lifetime or expiry time; nil reads `expiresIn` when it is there.
        public var expiresField: FieldPath?
        /// Whether a `--token-url` with a path of its own is the endpoint itself rather than where the path is added
        /// (the rule of the first two shapes, kept for them).
        public let urlMayBeEndpoint: Bool
        /// Whether the server answers `GET /ping` beside its token path (the community servers do).
        public let hasPing: Bool
        public let description: String
        /// The shape as tokencall shows and writes it: its name, or a template's `shown` (without query and body).
        public var shown: String { Self.named.contains { $0.shape.description == description } ? description : template.shown }

        init(_ description: String, _ template: String, urlMayBeEndpoint: Bool = false, hasPing: Bool = true) {
            // The table's templates are checked by the tests, so one that does not parse is a programming error.
            self.template = try! RequestTemplate(parsing: template)
            self.description = description
            self.urlMayBeEndpoint = urlMayBeEndpoint
            self.hasPing = hasPing
        }

        /// Agora's guide: `POST /fetch_rtc_token` `{"uid", "channelName", "role"}` → `{"token", "expiresIn"}`.
        public static let fetch = Shape("fetch", #"POST /fetch_rtc_token {"uid":{uid},"channelName":"{channel}","role":{role}}"#,
                                        urlMayBeEndpoint: true, hasPing: false)
        /// agora-token-service: `POST /getToken` `{"tokenType", "channel", "role", "uid"}` → `{"token"}`.
        public static let getToken = Shape("getToken",
                                           #"POST /getToken {"tokenType":"rtc","channel":"{channel}","role":"{roleName}","uid":"{user}"}"#,
                                           urlMayBeEndpoint: true)
        /// agora-token-service's legacy `GET /rtc/{channel}/{role}/uid/{uid}/` → `{"rtcToken"}`.
        public static let rtcPath = Shape("rtc-path", "GET /rtc/{channel}/{roleName}/{userType}/{user}/")

        /// Every name `--token-request` takes, with the server that speaks it.
        public static let named: [(shape: Shape, server: String)] = [
            (fetch, "Agora's guide"),
            (getToken, "agora-token-service, the server's default lifetime"),
            (rtcPath, "agora-token-service's legacy path"),
            (Shape("agora-token-service", #"POST /getToken {"tokenType":"rtc","channel":"{channel}","role":"{roleName}","uid":"{user}","expire":{expire}}"#,
                   urlMayBeEndpoint: true), "AgoraIO-Community/agora-token-service"),
            (Shape("agora-node-tokenserver", "GET /rtc/{channel}/{role:publisher|audience}/{userType}/{user}?expiry={expire}"),
             "AgoraIO-Community/Agora-Node-TokenServer"),
        ]

        /// A name from `named` (in any letter case), or a template: `GET /token?channel={channel}&uid={uid}`.
        public init(parsing text: String) throws(RequestTemplate.Problem) {
            if let match = Self.named.first(where: { $0.shape.description.lowercased() == text.lowercased() }) {
                self = match.shape
                return
            }
            guard text.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw RequestTemplate.Problem("\"\(text.prefix(40))\" is neither a request shape nor a template; the shapes are "
                    + Self.named.map(\.shape.description).joined(separator: ", ")
                    + ", and a template is METHOD /path such as 'GET /token?channel={channel}&uid={uid}'")
            }
            template = try RequestTemplate(parsing: text)
            description = text
            urlMayBeEndpoint = false
            hasPing = false
        }

        /// Whether the request asks for a lifetime (`{expire}`).
        public var asksForLifetime: Bool { template.placeholders.contains(.expire) }
    }
}
