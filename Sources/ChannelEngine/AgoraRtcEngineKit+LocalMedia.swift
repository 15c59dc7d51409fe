/// The local microphone and camera as the app switches them: nothing is captured, but their states are reported as
/// the SDK reports them (`localAudioStateChanged`, `localVideoStateChangedOf`), to the main connection's delegate.
///
/// *[ours]* The microphone records while the main connection is in its channel (a lost link included) as a
/// broadcaster with audio on (`enableAudio`, `enableLocalAudio`), and is encoding from then on; the camera captures
/// while video is on (`enableVideo`, `enableLocalVideo`) and it previews or broadcasts, and encodes while it
/// broadcasts in the channel.
/// A state is reported when it changes, passing through recording or capturing on the way up; the reason is always
/// `.ok`, as no device fails here.
extension AgoraRtcEngineKit {
    /// Turns the audio module on (the default): the microphone can record again.
    @discardableResult
    public func enableAudio() -> Int32 {
        call { turn(\.audioEnabled, on: true) }
    }

    /// Turns the audio module off: the microphone stops.
    @discardableResult
    public func disableAudio() -> Int32 {
        call { turn(\.audioEnabled, on: false) }
    }

    /// Stops or restarts the microphone alone; remote audio is unaffected.
    @discardableResult
    public func enableLocalAudio(_ enabled: Bool) -> Int32 {
        call { turn(\.localAudioEnabled, on: enabled) }
    }

    /// Stops or restarts the camera alone; while it is off the local user sends no video.
    @discardableResult
    public func enableLocalVideo(_ enabled: Bool) -> Int32 {
        call { turn(\.localVideoEnabled, on: enabled) }
    }

    private func turn(_ switch: ReferenceWritableKeyPath<AgoraRtcEngineKit, Bool>, on: Bool) -> Int32 {
        self[keyPath: `switch`] = on
        updateLocalMedia()
        return 0
    }

    /// Video on and the camera not switched off: what the local user sends while it broadcasts.
    var cameraOn: Bool { videoEnabled && localVideoEnabled }

    /// Reports the local states that changed since the last report.
    func updateLocalMedia() {
        let broadcasting = main.map { $0.isInChannel && $0.role == .broadcaster } ?? false
        let audio: AgoraAudioLocalState = audioEnabled && localAudioEnabled && broadcasting ? .encoding : .stopped
        if audio != localAudioState {
            if audio == .encoding { emit(.localAudioStateChanged(.recording, reason: .ok), on: nil) }
            emit(.localAudioStateChanged(audio, reason: .ok), on: nil)
            localAudioState = audio
        }
        let video: AgoraVideoLocalState = !cameraOn ? .stopped : broadcasting ? .encoding : previewing ? .capturing : .stopped
        if video != localVideoState {
            if video == .encoding, localVideoState == .stopped {
                emit(.localVideoStateChanged(.capturing, reason: .ok, source: .camera), on: nil)
            }
            emit(.localVideoStateChanged(video, reason: .ok, source: .camera), on: nil)
            localVideoState = video
        }
        tellHubMedia()
    }
}
