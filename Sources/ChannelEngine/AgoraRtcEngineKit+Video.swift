extension AgoraRtcEngineKit {
    /// Video on or off; with previewing and `enableLocalVideo`, whether the local user has a picture.
    @discardableResult
    public func enableVideo() -> Int32 {
        call {
            videoEnabled = true
            updateLocalMedia()
            return 0
        }
    }

    @discardableResult
    public func disableVideo() -> Int32 {
        call {
            videoEnabled = false
            updateLocalMedia()
            return 0
        }
    }

    @discardableResult
    public func startPreview() -> Int32 {
        call {
            previewing = true
            updateLocalMedia()
            return 0
        }
    }

    @discardableResult
    public func stopPreview() -> Int32 {
        call {
            previewing = false
            updateLocalMedia()
            return 0
        }
    }

    /// Where the local user's video goes; a nil `view` or `setupMode` `.remove` removes it.
    @discardableResult
    public func setupLocalVideo(_ local: AgoraRtcVideoCanvas?) -> Int32 {
        locked { localCanvas = local?.isKept == true ? local : nil }
        return 0
    }

    /// Where a remote user's video goes (by `uid`); a nil `view` or `setupMode` `.remove` removes it.
    @discardableResult
    public func setupRemoteVideo(_ remote: AgoraRtcVideoCanvas) -> Int32 {
        locked { remoteCanvases[remote.uid] = remote.isKept ? remote : nil }
        return 0
    }

    /// Where a remote user's video goes on a connection: the main one's (as `setupRemoteVideo(_:)`) or a
    /// multi-channel one's, named by channel and local uid, joined yet or not. Returns 0, or -2 for a connection no
    /// join could have *[ours]*.
    @discardableResult
    public func setupRemoteVideoEx(_ remote: AgoraRtcVideoCanvas, connection: AgoraRtcConnection) -> Int32 {
        let key = connection.key, canvas = remote.isKept ? remote : nil, uid = remote.uid
        guard Self.isJoinable(key) else { return -Int32(AgoraErrorCode.invalidArgument.rawValue) }
        return locked {
            if main?.connection == key {
                remoteCanvases[uid] = canvas
            } else {
                exCanvases[key, default: [:]][uid] = canvas
            }
            return 0
        }
    }

    /// The simulator's own: the canvas set up for a user (0 for the local one), so whatever draws video can
    /// find the app's view for it.
    public func videoCanvas(forUid uid: UInt) -> AgoraRtcVideoCanvas? {
        locked { uid == 0 ? localCanvas : remoteCanvases[uid] }
    }

    /// The simulator's own: the canvas set up for a remote user of a connection.
    public func videoCanvas(forUid uid: UInt, connection: AgoraRtcConnection) -> AgoraRtcVideoCanvas? {
        let key = connection.key
        return locked { main?.connection == key ? remoteCanvases[uid] : exCanvases[key]?[uid] }
    }
}
