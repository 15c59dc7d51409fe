import HubProtocol
import Timers

extension AgoraRtcEngineKit {
    /// How often `reportRtcStats` and `networkQuality` come while in a channel, as Agora's SDK reports them.
    static let reportInterval: Duration = .seconds(2)

    /// Starts the one report timer when a connection is in a channel, and stops it when none is.
    func updateReportTimer() {
        let inChannel = activeChannels.contains(where: \.isInChannel)
        if inChannel, reportTimer == nil {
            scheduleReport()
        } else if !inChannel {
            timers.cancel(reportTimer)
            reportTimer = nil
        }
    }

    private func scheduleReport() {
        reportTimer = timers.schedule(after: Self.reportInterval) { [weak self] in
            guard let self else { return }
            self.fire {
                self.reportTimer = nil
                self.report()
                self.updateReportTimer()
            }
        }
    }

    /// Each connection in a channel: its statistics, then the network quality of the local user (uid 0) and of
    /// each remote user it has announced; the local audio's statistics while the microphone is encoding (main
    /// connection only), then each announced remote user's video and audio statistics.
    private func report() {
        for channel in activeChannels where channel.isInChannel {
            emit(.reportRtcStats(statistics(of: channel)), on: channel)
            for uid in [0] + channel.announced {
                let quality = drawQuality(local: uid == 0, was: channel.quality[uid])
                channel.quality[uid] = quality
                emit(.networkQuality(uid: uid, tx: quality.tx, rx: quality.rx), on: channel)
            }
            channel.quality = channel.quality.filter { $0.key == 0 || channel.announced.contains($0.key) }
            if channel.isMain, localAudioState == .encoding { emit(.localAudioStats(Self.localAudioStats), on: channel) }
            if channel.isMain, localVideoState == .encoding {
                emit(.localVideoStats(localVideoStats, source: .camera), on: channel)
            }
            for uid in channel.announced {
                emit(.remoteVideoStats(remoteVideoStats(of: uid, on: channel)), on: channel)
                emit(.remoteAudioStats(remoteAudioStats(of: uid, on: channel)), on: channel)
            }
        }
    }

    /// A voice as the SDK's default live-broadcasting audio profile sends it: mono, 48 kHz.
    static let voiceChannels: UInt = 1
    static let voiceSampleRate: UInt = 48_000
    /// The frame rate a simulated user's video is reported at: the SDK's default encoder frame rate *[ours]*.
    static let simulatedFrameRate = AgoraVideoFrameRate.fps15.rawValue

    private static var localAudioStats: AgoraRtcLocalAudioStats {
        var stats = AgoraRtcLocalAudioStats()
        stats.numChannels = voiceChannels
        stats.sentSampleRate = voiceSampleRate
        return stats
    }

    /// The size of what the user sends (a hub user's latest frame, a simulated user's picture) and its frame rate,
    /// 0 unless it is decoding and moving (neither link silent).
    private func remoteVideoStats(of uid: UInt, on channel: Channel) -> AgoraRtcRemoteVideoStats {
        var stats = AgoraRtcRemoteVideoStats()
        stats.uid = uid
        let hubFrame = usesHub(channel) ? hub?.frames[uid]?.frame : nil
        let size = hubFrame.map { VideoSize(width: $0.columns, height: $0.rows) }
            ?? worlds[channel.connection.channelId]?.peer(uid)?.videoSize
        stats.width = UInt(size?.width ?? 0)
        stats.height = UInt(size?.height ?? 0)
        let silent = worlds[channel.connection.channelId]?.peer(uid)?.silentSince != nil
        if channel.remoteVideo[uid] == .decoding, networkDownSince == nil, !silent {
            let rate = hubFrame == nil ? Self.simulatedFrameRate : HubVideoFrame.maxPerSecond
            stats.decoderOutputFrameRate = rate
            stats.receivedFrameRate = rate
            stats.rendererOutputFrameRate = min(rate, remoteRenderFps ?? rate)
        }
        return stats
    }

    /// A voice whose quality is the user's latest reception quality.
    private func remoteAudioStats(of uid: UInt, on channel: Channel) -> AgoraRtcRemoteAudioStats {
        var stats = AgoraRtcRemoteAudioStats()
        stats.uid = uid
        stats.quality = UInt(channel.quality[uid]?.rx.rawValue ?? AgoraNetworkQuality.unknown.rawValue)
        stats.numChannels = Self.voiceChannels
        stats.receivedSampleRate = Self.voiceSampleRate
        return stats
    }

    /// Excellent to poor with the link up, holding from one report to the next four times in five, as a link drifts
    /// rather than jumps; while it is down the local user's link is down and everyone else's bad or very bad, as far
    /// as the engine can tell *[ours]*.
    private func drawQuality(local: Bool, was: Channel.Quality?) -> Channel.Quality {
        func draw() -> AgoraNetworkQuality {
            let roll = Int.random(in: 0..<10, using: &qualityRandom)
            guard networkDownSince == nil else { return local ? .down : (roll < 5 ? .bad : .vBad) }
            return roll < 5 ? .excellent : roll < 9 ? .good : .poor
        }
        let holds = Int.random(in: 0..<5, using: &qualityRandom) > 0
        if let was, holds, networkDownSince == nil, was.tx.rawValue <= AgoraNetworkQuality.poor.rawValue { return was }
        return (draw(), draw())
    }
}
