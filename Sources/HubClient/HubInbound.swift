import HubProtocol
import WebSocket

/// What a client reads from its hub, as bytes arrive, and what each message asks of the connection — without I/O, so
/// `Fuzz/HubClientFuzzer.swift` feeds it what a hostile hub could send. Strict about the hub's own part of the
/// protocol (frames, notices, a video frame's size and header, which the hub checks before forwarding); lenient about
/// what a user sent through it: a frame whose cells do not add up is that user's, and is dropped, not the link.
struct HubInbound {
    /// The most one message from the hub may hold: a `joined` lists every broadcaster of a channel.
    static let maxMessageBytes = 1 << 20

    /// What the connection does next.
    enum Step: Equatable {
        /// Tells the user: a notice, another user's frame, or that such a frame could not be read.
        case deliver(HubLinkEvent)
        /// Answers the hub's ping with its payload.
        case pong([UInt8])
        /// An answer to the client's own ping: the hub is there, nothing more.
        case heard
        /// The hub is closing, with this code (`.noStatus`: none) and reason.
        case closed(WebSocketCloseCode, reason: String)
        /// The hub broke the protocol: the connection closes with this code, saying why.
        case broken(WebSocketCloseCode, String)
    }

    private var reader = WebSocketReader(role: .client, maxMessageBytes: Self.maxMessageBytes)

    mutating func append(_ bytes: some Collection<UInt8>) { reader.append(bytes) }

    /// The next step for the bytes so far; nil until more arrive. After `closed` or `broken` nothing more is read.
    mutating func next() -> Step? {
        let event: WebSocketEvent?
        do { event = try reader.next() } catch { return .broken(error.code, error.reason) }
        switch event {
        case nil: return nil
        case .ping(let payload): return .pong(payload)
        case .pong: return .heard
        case .close(let code, let reason): return .closed(code, reason: reason)
        case .text(let text):
            do { return .deliver(.notice(try HubNotice(json: text))) } catch {
                return .broken(.policyViolation, "a text message that is not a hub notice: \(error)")
            }
        case .binary(let bytes): return Self.video(bytes)
        }
    }

    /// A binary message: a frame, or the user's frame that does not read (a hub forwards a valid header unread); a
    /// message too large or without a valid header is the hub's own fault.
    static func video(_ bytes: [UInt8]) -> Step {
        do { return .deliver(.video(try HubVideoFrame(decoding: bytes))) } catch {
            guard bytes.count <= HubVideoFrame.maxBytes else { return .broken(.messageTooBig, error.description) }
            guard let uid = HubVideoFrame.stampedUid(of: bytes) else { return .broken(.policyViolation, error.description) }
            return .deliver(.unreadableVideo(uid: uid, problem: error.description))
        }
    }
}
