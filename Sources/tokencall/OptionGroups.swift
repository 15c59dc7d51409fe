import AccessToken
import Arguments
import CallSession
import ChannelEngine
import PrintableText
import TokenClient
import TokenServer

// The options several commands take, each declared once and read by its key (`args[CallOptions.fps]`). To add one:
// declare a key in the group it belongs to (or a command's own enum), put `.option` of it in the table of each command
// that takes it, and read it as `args[Group.key]`.

/// The call itself: where it joins, as whom, and how it renews (`join`, `test`).
enum CallOptions {
    static let channel: OptionKey<String> = .text("channel", "NAME", help: "channel to join", default: "test")
    /// `--uid` as a call takes it (read by `UserOptions.uid`, through `Invocation.user()`): 0 unless given.
    static let uid = UserOptions.uid.option.defaulting(to: "0", help: "local uid, 0...4294967295; 0 lets the engine pick one")
    static let account: OptionKey<String?> = .text(
        "account", "NAME", help: "join with this string user account instead of a uid; the engine assigns the uid")
    static let role: OptionKey<AgoraClientRole> = .choice("role", "ROLE", help: "", [("broadcaster", .broadcaster), ("audience", .audience)],
                                                          default: "broadcaster")
    static let renewMethod: OptionKey<RenewMethod> = .choice("renew-method", "METHOD", help: "", default: .renew)
    static let noAutoRenew: OptionKey<Bool> = .flag("no-auto-renew", help: "do not renew on tokenPrivilegeWillExpire or requestToken")
    static let remoteUsers: OptionKey<Int> = .integer("remote-users", help: "simulated remote users",
                                                      in: 0...AgoraRtcEngineKit.remoteUserLimit, default: 2)
    static let seed: OptionKey<UInt64?> = .integer("seed", help: "seed of the simulation; the same seed gives the same call",
                                                   in: 0...UInt64.max, otherwise: "random")
    static let tokenLifetime: OptionKey<UInt32> = .integer(
        "token-lifetime", "SECONDS", help: "lifetime of the embedded server's tokens, or {expire} in --token-request",
        in: TokenServerConfig.lifetimeRange, default: 40)
}

/// The user, as `Invocation.user()` reads it in every command: `--uid` with the default of the command's row (a call's is
/// 0, `token build`'s none), so read as text that may be absent.
enum UserOptions {
    static let uid: OptionKey<String?> = .text("uid", "N", help: "integer uid, 0...4294967295")
}

/// Where tokens come from: the user's server and how to ask it, or the embedded one's App ID (`join`, `test`, `doctor`, `load`).
enum TokenSourceOptions {
    static let tokenURL = OptionKey<String?>.text(
        "token-url", "URL", help: "your token server; without it an embedded one runs on 127.0.0.1",
        environment: ["TOKENCALL_TOKEN_URL"]).kept(.shown(\.urlWithoutCredentials))
    static let tokenRequest = OptionKey<String>.text(
        "token-request", "SHAPE", help: "the request your server takes: a shape below, or a template 'METHOD /path?query [JSON body]'",
        default: "fetch").kept(.shown { (try? HTTPTokenProvider.Shape(parsing: $0))?.shown ?? "" })
    static let tokenField: OptionKey<String?> = .text(
        "token-field", "PATH",
        help: "where your server's answer holds the token, such as data.token; . is the token alone (default token, rtcToken or the token alone)")
    static let expiresField: OptionKey<String?> = .text(
        "expires-field", "PATH", help: "where it holds the lifetime in seconds or the unix expiry time (default expiresIn)")
    static let authBearer = OptionKey<String?>.text(
        "auth-bearer", "CRED", help: "your credential for the token server, sent as Authorization: Bearer", environment: ["TOKENCALL_AUTH_BEARER"]
    ).kept(.never)
    static let origin: OptionKey<String?> = .text(
        "origin", "ORIGIN", help: "sent as the Origin header of each token request, as a browser app at that origin sends it "
            + "(scheme, host and port, such as https://app.example)")
    static let requestTimeout: OptionKey<Int> = .integer("request-timeout", "SECONDS", help: "overall deadline of one token request",
                                                         in: 1...120, default: 10)
    static let appID: OptionKey<String?> = .text("app-id", "ID", help: "App ID (embedded server: random if not given)", environment: ["APP_ID"])
    static let appCertificate = OptionKey<String?>.text(
        "app-certificate", "CERT", help: "App Certificate (embedded server: random if not given)", environment: ["APP_CERTIFICATE"]
    ).kept(.never)
}

/// Which CA certificates an https:// token server and a wss:// hub are checked against.
enum TrustOptions {
    static let caFile: OptionKey<String?> = .text(
        "ca-file", "FILE", help: "trust the CA certificates in this PEM file for an https:// token server and a wss:// hub, instead of the "
            + "system's (which SSL_CERT_FILE can name)")
}

/// The call screen and the event lines instead of it (`join`, `replay`).
enum ScreenOptions {
    static let fps: OptionKey<Int> = .integer("fps", help: "frames per second of the call screen", in: 1...60, default: 15)
    static let noColor: OptionKey<Bool> = .flag("no-color", help: "no colours on the call screen (also NO_COLOR)")
}

/// What `join` writes besides the call. Docs/usage.md ("Recordings and pictures").
enum OutputOptions {
    static let record: OptionKey<String?> = .text("record", "FILE", help: "write the call's events to FILE (JSON lines) for tokencall replay")
    static let cast: OptionKey<String?> = .text(
        "cast", "FILE", help: "record the call screen as an asciinema v2 recording (play it with asciinema play FILE)")
    static let screenshot: OptionKey<String?> = .text(
        "screenshot", "FILE.svg", help: "no screen: draw it into an SVG picture when --duration is over, then exit")
    static let size: OptionKey<String> = .text("size", "COLSxROWS", help: "the --screenshot picture's size in cells, 60x20...400x200",
                                               default: "120x36")
    static let overwrite: OptionKey<Bool> = .flag(
        "overwrite", help: "let --record, --cast or --screenshot write over what the path names (a link is followed, a device stays one)")
}
