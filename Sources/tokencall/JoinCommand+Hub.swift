import Arguments
import CallSession
import HubClient
import PrintableText
import TLS
import Timers

/// `join --hub`: the channel is a hub's, and the other people in it are remote users.
extension JoinCommand {
    /// `--hub URL` or TOKENCALL_HUB, a hub's address; `help` says what the command does with it.
    static func hubKey(help: String) -> OptionKey<String?> {
        OptionKey<String?>.text("hub", "URL", help: help, environment: ["TOKENCALL_HUB"]).kept(.shown(\.urlWithoutCredentials))
    }

    static let hub = hubKey(
        help: "join the channel on this hub, ws://HOST:PORT/hub of tokencall serve (wss:// when it serves TLS, its certificate "
            + "checked like an https:// token server's): the people there are remote users")

    /// The hub `--hub` names, checked; nil when it names none.
    static func hubAddress(_ args: Invocation) throws(UsageError) -> HubAddress? {
        guard let text = args[hub] else { return nil }
        do throws(HubAddressError) { return try HubAddress(parsing: text) } catch { throw args.error("\(args.described(hub)): \(error)") }
    }

    /// Puts the call on the hub `--hub` names, if it names one, served by `loop` (`hubLoop`).
    static func joinHub(_ config: inout CallSession.Configuration, _ args: Invocation, server: TokenServerChoice,
                        loop: HubClientLoop?) throws(UsageError) {
        guard let address = try hubAddress(args), let loop else { return }
        if args.has(speed) {
            throw args.error("--speed cannot run with --hub: the people on a hub meet in real time; drop --speed")
        }
        if case .embedded = server, config.appID == nil || config.appCertificate == nil {
            throw args.error("--hub with the embedded token server needs the hub's --app-id and --app-certificate (or APP_ID and "
                             + "APP_CERTIFICATE, as tokencall serve reads them), so that the hub takes its tokens; "
                             + "or give --token-url of the hub's own token server")
        }
        let routed = address.routed(to: config.channel)
        config.hub = CallSession.Hub(address: address.description,
                                     link: HubConnection(address: routed, loop: loop, trust: try args.trust()))
    }

    /// The loop a hub call's connection runs on, when `--hub` is given; `.failure` after saying why it cannot start.
    static func hubLoop(_ args: Invocation) -> Result<HubClientLoop?, any Error> {
        guard args.has(hub) else { return .success(nil) }
        do { return .success(try HubClientLoop()) } catch {
            Console.error("\(args.path.joined(separator: " ")): cannot start the hub client: \(error); raise the open-file limit (ulimit -n)")
            return .failure(error)
        }
    }
}
