extension AgoraRtcEngineKit {
    /// Whether the local user has a video source: video on, and previewing.
    @discardableResult
    public func enableVideo() -> Int32 {
        locked { videoEnabled = true }
        return 0
    }

    @discardableResult
    public func disableVideo() -> Int32 {
        locked { videoEnabled = false }
        return 0
    }

    @discardableResult
    public func startPreview() -> Int32 {
        locked { previewing = true }
        return 0
    }

    @discardableResult
    public func stopPreview() -> Int32 {
        locked { previewing = false }
        return 0
    }

    /// Where the local user's video goes; a nil `view` removes it.
    @discardableResult
    public func setupLocalVideo(_ local: AgoraRtcVideoCanvas?) -> Int32 {
        locked { localCanvas = local?.view == nil ? nil : local }
        return 0
    }

    /// Where a remote user's video goes (by `uid`); a nil `view` removes it.
    @discardableResult
    public func setupRemoteVideo(_ remote: AgoraRtcVideoCanvas) -> Int32 {
        locked { remoteCanvases[remote.uid] = remote.view == nil ? nil : remote }
        return 0
    }

    /// The simulator's own: the canvas set up for a user (0 for the local one), so whatever draws video can
    /// find the app's view for it.
    public func videoCanvas(forUid uid: UInt) -> AgoraRtcVideoCanvas? {
        locked { uid == 0 ? localCanvas : remoteCanvases[uid] }
    }
}
