import Synchronization

extension AgoraRtcEngineKit {
    private static let shared = Mutex<AgoraRtcEngineKit?>(nil)

    /// The one shared engine, as apps get it, from any thread: made by the first call; later calls return it with
    /// their delegate. `isolation` is the caller's, as for `init(config:delegate:isolation:)`.
    public static func sharedEngine(with config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?,
                                    isolation: (any Actor)? = #isolation) -> AgoraRtcEngineKit {
        let (engine, made) = shared.withLock { shared -> (AgoraRtcEngineKit, Bool) in
            if let shared { return (shared, false) }
            let engine = AgoraRtcEngineKit(config: config, delegate: delegate, isolation: isolation)
            shared = engine
            return (engine, true)
        }
        if !made { engine.delegate = delegate }
        return engine
    }

    /// `sharedEngine(with:delegate:)` with a config that names only the App ID.
    public static func sharedEngine(withAppId appId: String, delegate: (any AgoraRtcEngineDelegate)?,
                                    isolation: (any Actor)? = #isolation) -> AgoraRtcEngineKit {
        let config = AgoraRtcEngineConfig()
        config.appId = appId
        return sharedEngine(with: config, delegate: delegate, isolation: isolation)
    }

    /// Releases the shared engine, from any thread: it leaves every channel without further callbacks, and the next
    /// `sharedEngine(with:delegate:)` makes a new one.
    public static func destroy() {
        guard let engine = shared.withLock({ shared in defer { shared = nil }; return shared }) else { return }
        engine.locked {
            engine.delegateReference = nil
            engine.observerClosure = nil
            for channel in engine.activeChannels { engine.leave(channel) }
            engine.timers.cancel(engine.probeTimers)
            engine.probeTimers = []
            engine.queue = CallbackQueue()
        }
        engine.hub?.link.close()
    }
}
