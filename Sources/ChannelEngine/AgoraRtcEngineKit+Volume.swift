import Timers

extension AgoraRtcEngineKit {
    /// Asks for `reportAudioVolumeIndicationOfSpeakers` every `interval` ms while in a channel, and `activeSpeaker`
    /// when the loudest remote user changes; `interval` ≤ 0 stops them. Returns 0; `smooth` is accepted and unused.
    @discardableResult
    public func enableAudioVolumeIndication(_ interval: Int, smooth: Int, reportVad: Bool) -> Int32 {
        call {
            volumeIndicationInterval = max(0, interval)
            self.reportVad = reportVad
            timers.cancel(volumeTimer)
            volumeTimer = nil
            updateVolumeTimer()
            return 0
        }
    }

    /// Runs the one volume timer while reports are asked for and the main connection is in its channel.
    func updateVolumeTimer() {
        let wanted = volumeIndicationInterval > 0 && main?.isInChannel == true
        if wanted, volumeTimer == nil {
            scheduleVolumeReport()
        } else if !wanted {
            timers.cancel(volumeTimer)
            volumeTimer = nil
            activeSpeakerUid = nil
        }
    }

    private func scheduleVolumeReport() {
        volumeTimer = timers.schedule(after: .milliseconds(Int64(volumeIndicationInterval))) { [weak self] in
            guard let self else { return }
            self.fire {
                self.volumeTimer = nil
                self.reportVolumes()
                self.updateVolumeTimer()
            }
        }
    }

    /// One report of every user of the main connection (the local one as uid 0), each volume drawn from the seed,
    /// silent while the link is down; then `activeSpeaker` if the loudest remote user changed *[ours]*. One remote
    /// user talks (loud) while the others murmur, and the talk passes to another one report in four, as a
    /// conversation does.
    private func reportVolumes() {
        guard let main, main.isInChannel else { return }
        if talker.map({ !main.announced.contains($0) }) ?? true || Int.random(in: 0..<4, using: &volumeRandom) == 0 {
            talker = main.announced.randomElement(using: &volumeRandom)
        }
        let speakers = ([0] + main.announced).map { uid in
            let volume = uid == talker ? UInt.random(in: 128...255, using: &volumeRandom) : UInt.random(in: 0...100, using: &volumeRandom)
            let heard = networkDownSince == nil ? volume : 0
            return AgoraRtcAudioVolumeInfo(uid: uid, volume: heard, vad: reportVad && heard > 0 ? 1 : 0)
        }
        emit(.reportAudioVolumeIndication(speakers: speakers, totalVolume: Int(speakers.map(\.volume).max() ?? 0)),
             on: main)
        let loudest = speakers.dropFirst().max { $0.volume < $1.volume }
        if let loudest, loudest.volume > 0, loudest.uid != activeSpeakerUid {
            activeSpeakerUid = loudest.uid
            emit(.activeSpeaker(uid: loudest.uid), on: main)
        }
    }
}
