/// When Agora tells a user their token is ending: `tokenPrivilegeWillExpire` comes this long before the token's
/// privileges end, from the SDK and from the hub alike. The engine's config, the hub's configuration and the call
/// screen read it here.
public enum AgoraTokenTiming {
    /// The lead in whole seconds, for unix times.
    public static let willExpireLeadSeconds: Int64 = 30
    public static let willExpireLead: Duration = .seconds(willExpireLeadSeconds)
}
