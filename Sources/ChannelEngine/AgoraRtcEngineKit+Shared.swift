extension AgoraRtcEngineKit {
    @MainActor private static var shared: AgoraRtcEngineKit?

    /// The one shared engine, as apps get it: made by the first call; later calls return it with their delegate.
    @MainActor
    public static func sharedEngine(with config: AgoraRtcEngineConfig, delegate: (any AgoraRtcEngineDelegate)?) -> AgoraRtcEngineKit {
        if let shared {
            shared.delegate = delegate
            return shared
        }
        let engine = AgoraRtcEngineKit(config: config, delegate: delegate)
        shared = engine
        return engine
    }

    /// Releases the shared engine: it leaves every channel without further callbacks, and the next
    /// `sharedEngine(with:delegate:)` makes a new one.
    @MainActor
    public static func destroy() {
        guard let engine = shared else { return }
        shared = nil
        engine.locked {
            engine.delegateReference = nil
            engine.observerClosure = nil
            for channel in engine.activeChannels { engine.leave(channel) }
            engine.queue = CallbackQueue()
        }
        engine.hub?.link.close()
    }
}
