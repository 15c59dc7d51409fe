import AccessToken
import CallSession
import ChannelEngine
import JSON

extension SessionEvent {
    /// The event as a recording holds it: its `jsonLine`, with the members that line leaves out and a replay needs
    /// (a leave's statistics, a volume report's speakers, which setting a note reports). Never a token.
    public var recordedLine: String {
        let extra = recordedExtra
        guard !extra.isEmpty else { return jsonLine }
        return jsonLine.dropLast() + ", " + extra.map { "\"\($0)\": \($1)" }.joined(separator: ", ") + "}"
    }

    /// The members `jsonLine` lacks, as JSON texts.
    private var recordedExtra: [(String, String)] {
        switch kind {
        case .engine(.didLeaveChannel(_, _, let stats)), .engine(.reportRtcStats(let stats)):
            return [("stats", "{\"duration\": \(stats.duration), \"txBytes\": \(stats.txBytes), \"rxBytes\": \(stats.rxBytes), "
                     + "\"users\": \(stats.userCount), \"cpuAppUsage\": \(stats.cpuAppUsage.isFinite ? stats.cpuAppUsage : 0)}")]
        case .engine(.reportAudioVolumeIndication(let speakers, _)):
            let volumes = speakers.map { "{\"uid\": \($0.uid), \"volume\": \($0.volume), \"vad\": \($0.vad)}" }
            return [("volumes", "[" + volumes.joined(separator: ", ") + "]")]
        case .autoRenewChanged(let on): return [("autoRenew", String(on))]
        case .renewMethodChanged(let method): return [("renewMethod", "\"\(method.rawValue)\"")]
        case .mistakeChanged(let mistake): return [("mistake", mistake.map { "\"\($0.rawValue)\"" } ?? "null")]
        case .roleChanged(let role): return [("role", "\"\(role.name)\"")]
        default: return []
        }
    }

    /// The event a recorded line holds, exactly as `recordedLine` writes it (a token reads back empty); anything else is
    /// a `LineProblem`.
    init(recorded bytes: some Collection<UInt8>) throws(LineProblem) {
        let value = try RecordedObject.parse(bytes)
        let object = try RecordedObject(value, what: "the event")
        let given = try object.text("event")
        let name = Self.renamed[given] ?? given
        let members = RecordedObject(members: object.members, what: name)
        self.init(time: try members.seconds("t"), kind: try Self.kind(named: name, members))
        var written = object.members
        written["event"] = .string(name)
        guard JSONValue.parse(Array(recordedLine.utf8)) == .object(written) else {
            throw LineProblem("\(name)'s members are not the ones it has, or disagree with each other")
        }
    }

    /// Events recorded under a name they no longer have, by that name: read as the event they are now.
    static let renamed = ["didRegisteredLocalUser": "didLocalUserRegistered"]

    private static func kind(named name: String, _ object: RecordedObject) throws(LineProblem) -> Kind {
        switch name {
        case "tokenFetchStarted": return .tokenFetchStarted(reason: try object.text("reason"))
        case "tokenFetched": return .tokenFetched(latency: try object.seconds("latency"), expiresAt: try object.unixTime("expiresAt"))
        case "tokenFetchFailed": return .tokenFetchFailed(error: try object.text("error"), retryIn: try object.optionalSeconds("retryIn"))
        case "tokenRenewed": return .tokenRenewed(method: try object.choice("method", \RenewMethod.rawValue))
        case "tokenPasted": return .tokenPasted(expiresAt: try object.unixTime("expiresAt"))
        case "tokenNeeded": return .tokenNeeded(secondsLeft: try object.integer("secondsLeft"))
        case "stuck": return .stuck(reason: try object.text("reason"))
        case "sessionEnded": return .sessionEnded(failed: try object.flag("failed"))
        case "note":
            if object.members["autoRenew"] != nil { return .autoRenewChanged(on: try object.flag("autoRenew")) }
            if object.members["renewMethod"] != nil { return .renewMethodChanged(try object.choice("renewMethod", \RenewMethod.rawValue)) }
            if let mistake = object.members["mistake"] {
                return .mistakeChanged(mistake == .null ? nil : try object.choice("mistake", \TokenMistake.rawValue))
            }
            if object.members["role"] != nil { return .roleChanged(try object.choice("role", \AgoraClientRole.name)) }
            return .note(try object.text("text"))
        default: return .engine(try engineEvent(named: name, object))
        }
    }

    private static func engineEvent(named name: String, _ object: RecordedObject) throws(LineProblem) -> AgoraRtcEvent {
        func uid(_ key: String = "uid") throws(LineProblem) -> UInt { UInt(try object.integer(key, as: UInt32.self)) }
        func elapsed() throws(LineProblem) -> Int { try object.integer("elapsed") }
        switch name {
        case "connectionStateChanged":
            return .connectionStateChanged(try object.choice("state", \AgoraConnectionState.name),
                                           reason: try object.choice("reason", \AgoraConnectionChangedReason.name))
        case "didJoinChannel": return .didJoinChannel(channel: try object.text("channel"), uid: try uid(), elapsed: try elapsed())
        case "didRejoinChannel": return .didRejoinChannel(channel: try object.text("channel"), uid: try uid(), elapsed: try elapsed())
        case "didLeaveChannel": return .didLeaveChannel(channel: try object.text("channel"), uid: try uid(), stats: try stats(object))
        case "didLocalUserRegistered": return .didLocalUserRegistered(account: try object.text("account"), uid: try uid())
        case "tokenPrivilegeWillExpire": return .tokenPrivilegeWillExpire(token: "")
        case "requestToken": return .requestToken
        case "renewTokenResult": return .renewTokenResult(token: "", code: try object.choice("code", \AgoraRenewTokenErrorCode.name))
        case "didJoinedOfUid": return .didJoinedOfUid(try uid(), elapsed: try elapsed())
        case "didOfflineOfUid": return .didOfflineOfUid(try uid(), reason: try object.choice("reason", \AgoraUserOfflineReason.name))
        case "firstRemoteVideoFrame":
            return .firstRemoteVideoFrame(uid: try uid(), size: VideoSize(width: try object.integer("width"), height: try object.integer("height")),
                                          elapsed: try elapsed())
        case "didOccurError":
            let number: Int = try object.integer("code")
            guard let code = AgoraErrorCode(rawValue: number) else { throw LineProblem("didOccurError's code \(number) is not an error the engine has") }
            return .didOccurError(code)
        case "didClientRoleChanged":
            let latency = object.members["latency"] == nil ? nil : try object.choice("latency", \AgoraAudienceLatencyLevelType.name)
            return .didClientRoleChanged(old: try object.choice("old", \AgoraClientRole.name), new: try object.choice("new", \AgoraClientRole.name),
                                         latency: latency)
        case "reportRtcStats": return .reportRtcStats(try stats(object))
        case "networkQuality":
            return .networkQuality(uid: try uid(), tx: try object.choice("tx", \AgoraNetworkQuality.name),
                                   rx: try object.choice("rx", \AgoraNetworkQuality.name))
        case "reportAudioVolumeIndicationOfSpeakers":
            var speakers: [AgoraRtcAudioVolumeInfo] = []
            for item in try object.array("volumes") {
                let speaker = try RecordedObject(item, what: "a speaker of \(name)")
                speakers.append(AgoraRtcAudioVolumeInfo(uid: try speaker.integer("uid"), volume: try speaker.integer("volume"),
                                                        vad: try speaker.integer("vad")))
            }
            return .reportAudioVolumeIndication(speakers: speakers, totalVolume: try object.integer("totalVolume"))
        case "activeSpeaker": return .activeSpeaker(uid: try uid())
        case "remoteVideoStateChanged":
            return .remoteVideoStateChanged(uid: try uid(), state: try object.choice("state", \AgoraVideoRemoteState.name),
                                            reason: try object.choice("reason", \AgoraVideoRemoteReason.name), elapsed: try elapsed())
        case "remoteAudioStateChanged":
            return .remoteAudioStateChanged(uid: try uid(), state: try object.choice("state", \AgoraAudioRemoteState.name),
                                            reason: try object.choice("reason", \AgoraAudioRemoteReason.name), elapsed: try elapsed())
        case "connectionDidInterrupted": return .connectionInterrupted
        case "connectionDidLost": return .connectionLost
        case "connectionDidBanned": return .connectionBanned
        case "simulatorNotice": return .simulatorNotice(try notice(object))
        default: throw LineProblem("\(RecordedObject.quoted(name)) is not an event tokencall records")
        }
    }

    private static func stats(_ object: RecordedObject) throws(LineProblem) -> AgoraChannelStats {
        let members = try object.object("stats")
        var stats = AgoraChannelStats()
        stats.duration = try members.integer("duration")
        stats.txBytes = try members.integer("txBytes")
        stats.rxBytes = try members.integer("rxBytes")
        stats.userCount = try members.integer("users")
        let usage = try members.value("cpuAppUsage")
        let text: String? = switch usage {
        case .integer(let whole): String(whole)
        case .number(let text): text
        default: nil
        }
        guard let text, let cpu = Double(text), cpu.isFinite else { throw LineProblem("\(members.what)'s \"cpuAppUsage\" must be a number") }
        stats.cpuAppUsage = cpu
        return stats
    }

    private static func notice(_ object: RecordedObject) throws(LineProblem) -> SimulatorNotice {
        switch try object.text("notice") {
        case "signatureNotChecked": return .signatureNotChecked
        case "tokenAccepted": return .tokenAccepted(expiresAt: try object.unixTime("expiresAt"), short: try object.flag("short"))
        case "localUserOfflineForPeers": return .localUserOfflineForPeers(try object.choice("reason", \AgoraUserOfflineReason.name))
        case "network": return .network(down: try object.flag("down"))
        case "hubConnected": return .hubConnected
        case "hubLost": return .hubLost(reason: try object.text("reason"))
        case "hubError": return .hubError(try object.text("message"))
        case "hubVideoUnreadable":
            return .hubVideoUnreadable(uid: UInt(try object.integer("uid", as: UInt32.self)), problem: try object.text("problem"))
        case "hubUsersPastLimit": return .hubUsersPastLimit(Int(try object.integer("limit", as: UInt16.self)))
        case "accepted":
            return .accepted(try object.choice("method", \AcceptedCall.rawValue), arguments: try object.text("arguments"))
        case "localMuteForPeers": return .localMuteForPeers(audio: try object.flag("audio"), muted: try object.flag("muted"))
        case let other: throw LineProblem("simulatorNotice's notice \(RecordedObject.quoted(other)) is not one the engine gives")
        }
    }
}
