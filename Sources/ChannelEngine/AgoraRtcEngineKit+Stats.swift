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
    /// each remote user it has announced.
    private func report() {
        for channel in activeChannels where channel.isInChannel {
            emit(.reportRtcStats(statistics(of: channel)), on: channel)
            for uid in [0] + channel.announced {
                let quality = drawQuality(local: uid == 0, was: channel.quality[uid])
                channel.quality[uid] = quality
                emit(.networkQuality(uid: uid, tx: quality.tx, rx: quality.rx), on: channel)
            }
            channel.quality = channel.quality.filter { $0.key == 0 || channel.announced.contains($0.key) }
        }
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
