extension SessionEvent {
    /// Every event's name and the names of the fields it can carry, as `--json` writes them (Docs/events.md): what a
    /// scenario's checks may name.
    public static let fieldNames: [String: [String]] = [
        "connectionStateChanged": ["state", "reason"],
        "didJoinChannel": ["channel", "uid", "elapsed"],
        "didRejoinChannel": ["channel", "uid", "elapsed"],
        "didLeaveChannel": ["channel", "uid"],
        "didLocalUserRegistered": ["account", "uid"],
        "tokenPrivilegeWillExpire": [],
        "requestToken": [],
        "renewTokenResult": ["code"],
        "didJoinedOfUid": ["uid", "elapsed"],
        "didOfflineOfUid": ["uid", "reason"],
        "firstRemoteVideoFrame": ["uid", "width", "height", "elapsed"],
        "didOccurError": ["code", "name"],
        "didClientRoleChanged": ["old", "new", "latency"],
        "didUserInfoUpdated": ["uid", "account"],
        "reportRtcStats": ["duration", "users"],
        "networkQuality": ["uid", "tx", "rx"],
        "reportAudioVolumeIndicationOfSpeakers": ["speakers", "totalVolume"],
        "activeSpeaker": ["uid"],
        "remoteVideoStateChanged": ["uid", "state", "reason", "elapsed"],
        "remoteAudioStateChanged": ["uid", "state", "reason", "elapsed"],
        "connectionDidInterrupted": [],
        "connectionDidLost": [],
        "connectionDidBanned": [],
        "localAudioStateChanged": ["state", "reason"],
        "localVideoStateChanged": ["state", "reason", "source"],
        "localAudioStats": ["channels", "sampleRate"],
        "remoteVideoStats": ["uid", "width", "height", "frameRate"],
        "remoteAudioStats": ["uid", "quality"],
        "networkTypeChanged": ["type"],
        "didOccurWarning": ["code", "name"],
        "snapshotTaken": ["uid", "filePath", "width", "height", "errCode"],
        "simulatorNotice": ["notice", "expiresAt", "short", "reason", "down", "message", "uid", "problem", "limit", "method", "arguments"],
        "tokenFetchStarted": ["reason"],
        "tokenFetched": ["latency", "expiresAt"],
        "tokenFetchFailed": ["error", "retryIn"],
        "tokenRenewed": ["method"],
        "tokenPasted": ["expiresAt"],
        "tokenNeeded": ["secondsLeft"],
        "note": ["text"],
        "stuck": ["reason"],
        "sessionEnded": ["failed"],
    ]

    /// A field's value as a scenario compares it: text as it is, a number in decimal, seconds as `decimal` writes them
    /// (`1.250`), a flag as `true` or `false`; nil for a field without a value.
    public static func comparable(_ value: Value) -> String? {
        switch value {
        case .text(let text): text
        case .number(let number): String(number)
        case .seconds(let duration): decimal(duration)
        case .flag(let flag): String(flag)
        case .none: nil
        }
    }
}
