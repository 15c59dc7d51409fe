import ChannelEngine

/// What a call is, as the screen, a recording's header and a scenario's artifacts all show it: who joins which channel,
/// through which token server, renewing how.
public struct CallSettings: Sendable, Equatable {
    public var channel: String
    /// The uid asked for (0: assigned at the join), or 0 with the user account joined as.
    public var uid: UInt
    public var account: String?
    public var role: AgoraClientRole
    /// The token server as the screen's header names it.
    public var tokenServer: String
    public var renewMethod: RenewMethod
    public var autoRenew: Bool
    /// The SDK whose words the call is shown in (`--sdk`), which `replay` shows it in unless told another.
    public var voice: SDKVoice

    public init(channel: String, uid: UInt, account: String? = nil, role: AgoraClientRole, tokenServer: String,
                renewMethod: RenewMethod, autoRenew: Bool, voice: SDKVoice = .standard) {
        self.channel = channel
        self.uid = uid
        self.account = account
        self.role = role
        self.tokenServer = tokenServer
        self.renewMethod = renewMethod
        self.autoRenew = autoRenew
        self.voice = voice
    }
}

extension CallSession {
    /// The call's settings as its configuration and token origin give them, before it starts.
    public var settings: CallSettings {
        let (uid, account) = configuration.uidAndAccount
        return CallSettings(channel: configuration.channel, uid: uid, account: account, role: configuration.role,
                            tokenServer: tokens.label, renewMethod: configuration.renewMethod, autoRenew: configuration.autoRenew,
                            voice: configuration.voice)
    }
}
