/// An Agora SDK whose words tokencall speaks (`--sdk`): the names of its callbacks, methods, states and reasons.
public enum SDKProfile: String, CaseIterable, Sendable {
    case ios, android, web, flutter, reactNative = "react-native", electron, unity

    /// The profile a call speaks when none is chosen.
    public static let standard = SDKProfile.ios

    /// The SDK as its developers call it, for a screen's header and the documentation.
    public var title: String { SDKWords.titles[self]! }

    /// The version from which this SDK reports a renewal's result (the Web: `client.renewToken`'s Promise, in every
    /// 4.x); nil when it never does (Electron, Unity).
    public var renewResultSince: SDKVersion? {
        switch self {
        case .ios, .android, .reactNative: SDKVersion(major: 4, minor: 6)
        case .flutter: SDKVersion(major: 6, minor: 6)
        case .web: SDKVersion(major: 4, minor: 0)
        case .electron, .unity: nil
        }
    }

    /// The version whose behaviour tokencall shows when `--sdk-version` is not given: the first with everything shown
    /// here (a renewal's result; the Web's `TOKEN_EXPIRE` reason, from 4.19).
    public var latest: SDKVersion {
        switch self {
        case .flutter: SDKVersion(major: 6, minor: 6)
        case .web: SDKVersion(major: 4, minor: 19)
        case .ios, .android, .reactNative, .electron, .unity: SDKVersion(major: 4, minor: 6)
        }
    }

    /// Whether the SDK fires a request for a token at expiry and keeps the call FAILED until one comes; the Web
    /// disconnects instead, and its app joins again.
    public var requestsToken: Bool { self != .web }

    /// A connection state in this SDK's spelling: `CONNECTION_STATE_FAILED`, `connectionStateFailed`, `"DISCONNECTED"`.
    public func spelling(of state: AgoraConnectionState) -> String {
        if self == .web { return state == .failed ? "DISCONNECTED" : Self.screaming(state.name) }
        return spell(prefix: "connectionState", state.name)
    }

    /// A change of state as this SDK reports it: the Web gives a reason only with DISCONNECTED.
    public func spelling(of state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason) -> (state: String, reason: String?) {
        let spelled = spelling(of: state)
        return (spelled, self == .web && spelled != "DISCONNECTED" ? nil : spelling(of: reason))
    }

    /// A reason in this SDK's spelling: `CONNECTION_CHANGED_TOKEN_EXPIRED`, `connectionChangedTokenExpired`, `TOKEN_EXPIRE`.
    public func spelling(of reason: AgoraConnectionChangedReason) -> String {
        if self == .web { return SDKWords.webReasons[reason] ?? Self.screaming(reason.name) }
        return spell(prefix: "connectionChanged", reason.name)
    }

    private func spell(prefix: String, _ name: String) -> String {
        switch self {
        case .ios: name
        case .android, .unity: Self.screaming(prefix + Self.capitalized(name))
        case .flutter: prefix + Self.capitalized(name)
        case .reactNative, .electron: Self.capitalized(prefix) + Self.capitalized(name)
        case .web: Self.screaming(name)
        }
    }

    /// `connectionStateFailed` as `CONNECTION_STATE_FAILED`.
    static func screaming(_ camel: String) -> String {
        var out = ""
        for character in camel {
            if character.isUppercase, !out.isEmpty { out += "_" }
            out += character.uppercased()
        }
        return out
    }

    private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
}

/// A version of an SDK as `--sdk-version` gives it: `4.5`, `6.6.0`.
public struct SDKVersion: Sendable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`, each part one to three ASCII digits; nil for anything else.
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
              parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } })
        else { return nil }
        let numbers = parts.map { $0.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } }
        self.init(major: numbers[0], minor: numbers[1])
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (a: SDKVersion, b: SDKVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
}

/// The words a call is shown in: a profile at a version.
public struct SDKVoice: Sendable, Equatable {
    public let profile: SDKProfile
    public let version: SDKVersion

    public init(_ profile: SDKProfile, version: SDKVersion? = nil) {
        self.profile = profile
        self.version = version ?? profile.latest
    }

    public static let standard = SDKVoice(.standard)

    /// Whether the app hears a renewal's result as a callback at this version.
    public var hearsRenewResult: Bool { profile.renewResultSince.map { version >= $0 } ?? false }

    /// A callback's or method's name in this voice; nil where the SDK has none.
    public func name(of word: SDKWord) -> String? {
        if profile == .flutter, version < SDKWords.flutterRenamedIn, let older = SDKWords.flutterBefore6[word] { return older }
        return SDKWords.table[word]?[profile]
    }
}

/// The token flow's callbacks and the methods an app calls, named by iOS (the profile-independent name).
public enum SDKWord: String, CaseIterable, Sendable {
    case tokenPrivilegeWillExpire, requestToken, renewTokenResult, connectionStateChanged
    case didJoinChannel, didRejoinChannel, didLeaveChannel, didJoinedOfUid, didOfflineOfUid, didOccurError, didClientRoleChanged
    case renewToken, joinChannel, leaveChannel, updateChannel

    /// Whether the app calls it (a method) rather than hears it (a callback).
    public var isMethod: Bool { [.renewToken, .joinChannel, .leaveChannel, .updateChannel].contains(self) }

    /// The word any profile's `name` is for, and the first profile that says it so: how a scenario written in any
    /// SDK's words is read. A name two words share (the Web's `client.join`) is the first word's, a callback before a method.
    public static func named(_ name: String) -> (word: SDKWord, profile: SDKProfile)? {
        for word in allCases {
            guard let row = SDKWords.table[word] else { continue }
            if let profile = SDKProfile.allCases.first(where: { row[$0] == name }) { return (word, profile) }
        }
        return nil
    }
}

/// The one table of names: a row per word, a name per profile (nil: the SDK has none).
public enum SDKWords {
    /// A name for each profile.
    public struct Row: Sendable {
        let names: [String?]

        init(ios: String?, android: String?, web: String?, flutter: String?, reactNative: String?, electron: String?, unity: String?) {
            names = [ios, android, web, flutter, reactNative, electron, unity]
        }

        public subscript(profile: SDKProfile) -> String? { names[SDKProfile.allCases.firstIndex(of: profile)!] }
    }

    static let titles = Row(ios: "iOS", android: "Android", web: "Web", flutter: "Flutter", reactNative: "React Native",
                            electron: "Electron", unity: "Unity")

    public static let table: [SDKWord: Row] = [
        .tokenPrivilegeWillExpire: Row(ios: "tokenPrivilegeWillExpire", android: "onTokenPrivilegeWillExpire",
                                       web: "token-privilege-will-expire", flutter: "onTokenPrivilegeWillExpire",
                                       reactNative: "onTokenPrivilegeWillExpire", electron: "onTokenPrivilegeWillExpire",
                                       unity: "OnTokenPrivilegeWillExpire"),
        .requestToken: Row(ios: "requestToken", android: "onRequestToken", web: "token-privilege-did-expire", flutter: "onRequestToken",
                           reactNative: "onRequestToken", electron: "onRequestToken", unity: "OnRequestToken"),
        .renewTokenResult: Row(ios: "renewTokenResult", android: "onRenewTokenResult", web: "client.renewToken", flutter: "onRenewTokenResult",
                               reactNative: "onRenewTokenResult", electron: nil, unity: nil),
        .connectionStateChanged: Row(ios: "connectionStateChanged", android: "onConnectionStateChanged", web: "connection-state-change",
                                     flutter: "onConnectionStateChanged", reactNative: "onConnectionStateChanged",
                                     electron: "onConnectionStateChanged", unity: "OnConnectionStateChanged"),
        .didJoinChannel: Row(ios: "didJoinChannel", android: "onJoinChannelSuccess", web: "client.join", flutter: "onJoinChannelSuccess",
                             reactNative: "onJoinChannelSuccess", electron: "onJoinChannelSuccess", unity: "OnJoinChannelSuccess"),
        .didRejoinChannel: Row(ios: "didRejoinChannel", android: "onRejoinChannelSuccess", web: "client.join", flutter: "onRejoinChannelSuccess",
                               reactNative: "onRejoinChannelSuccess", electron: "onRejoinChannelSuccess", unity: "OnRejoinChannelSuccess"),
        .didLeaveChannel: Row(ios: "didLeaveChannel", android: "onLeaveChannel", web: "client.leave", flutter: "onLeaveChannel",
                              reactNative: "onLeaveChannel", electron: "onLeaveChannel", unity: "OnLeaveChannel"),
        .didJoinedOfUid: Row(ios: "didJoinedOfUid", android: "onUserJoined", web: "user-joined", flutter: "onUserJoined",
                             reactNative: "onUserJoined", electron: "onUserJoined", unity: "OnUserJoined"),
        .didOfflineOfUid: Row(ios: "didOfflineOfUid", android: "onUserOffline", web: "user-left", flutter: "onUserOffline",
                              reactNative: "onUserOffline", electron: "onUserOffline", unity: "OnUserOffline"),
        .didOccurError: Row(ios: "didOccurError", android: "onError", web: "exception", flutter: "onError", reactNative: "onError",
                            electron: "onError", unity: "OnError"),
        .didClientRoleChanged: Row(ios: "didClientRoleChanged", android: "onClientRoleChanged", web: "client.setClientRole",
                                   flutter: "onClientRoleChanged", reactNative: "onClientRoleChanged", electron: "onClientRoleChanged",
                                   unity: "OnClientRoleChanged"),
        .renewToken: Row(ios: "renewToken", android: "renewToken", web: "client.renewToken", flutter: "renewToken",
                         reactNative: "renewToken", electron: "renewToken", unity: "RenewToken"),
        .joinChannel: Row(ios: "joinChannel(byToken:)", android: "joinChannel", web: "client.join", flutter: "joinChannel",
                          reactNative: "joinChannel", electron: "joinChannel", unity: "JoinChannel"),
        .leaveChannel: Row(ios: "leaveChannel", android: "leaveChannel", web: "client.leave", flutter: "leaveChannel",
                           reactNative: "leaveChannel", electron: "leaveChannel", unity: "LeaveChannel"),
        .updateChannel: Row(ios: "updateChannel(with:)", android: "updateChannelMediaOptions", web: nil,
                            flutter: "updateChannelMediaOptions", reactNative: "updateChannelMediaOptions",
                            electron: "updateChannelMediaOptions", unity: "UpdateChannelMediaOptions"),
    ]

    /// Flutter's names before 6.0, where they differ: no `on`, and no connection argument.
    public static let flutterBefore6: [SDKWord: String] = [
        .tokenPrivilegeWillExpire: "tokenPrivilegeWillExpire", .requestToken: "requestToken", .connectionStateChanged: "connectionStateChanged",
    ]
    /// The Flutter version that renamed them.
    public static let flutterRenamedIn = SDKVersion(major: 6, minor: 0)

    /// The Web's reasons (`ConnectionDisconnectedReason`) for the engine's; others are written in its upper case.
    static let webReasons: [AgoraConnectionChangedReason: String] = [
        .reasonTokenExpired: "TOKEN_EXPIRE", .reasonLeaveChannel: "LEAVE", .reasonBannedByServer: "UID_BANNED",
        .reasonInterrupted: "NETWORK_ERROR", .reasonLost: "NETWORK_ERROR", .reasonKeepAliveTimeout: "KEEP_A_LIVE_TIME_OUT",
        .reasonInvalidToken: "SERVER_ERROR", .reasonRejectedByServer: "SERVER_ERROR",
    ]
}
