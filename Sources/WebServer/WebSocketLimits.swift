/// The limits of a WebSocket endpoint's connections.
public struct WebSocketLimits: Sendable {
    /// The most one message from a client may hold.
    public var maxMessageBytes = 64 * 1024
    /// Bytes waiting to be sent to one client; past this it is dropped as too slow.
    public var maxQueuedBytes = 512 * 1024
    /// A client that takes none of what is waiting for it for this long is dropped.
    public var sendTimeout: Duration = .seconds(5)
    /// A client heard from not at all (no frame, not even a ping) for this long is lost.
    public var silenceLimit: Duration
    /// After the close frames, how long to wait for the client to close its end.
    public var lingerTimeout: Duration = .seconds(2)

    public init(silenceLimit: Duration) {
        self.silenceLimit = silenceLimit
    }
}
