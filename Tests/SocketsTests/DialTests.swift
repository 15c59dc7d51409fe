import Foundation
import Sockets
import Synchronization
import TestSupport
import Testing

/// `Dial`: a connect from a loop that never blocks it, ended by its deadline or its owner.
@Suite struct DialTests {
    /// What a dial's completion got, and whether it ran on the loop's thread.
    final class Ended: Sendable {
        let result = Mutex<(Result<Socket, SocketError>, onLoop: Bool)?>(nil)
        let done = DispatchSemaphore(value: 0)

        func hear(_ result: Result<Socket, SocketError>, on loop: EventLoop) {
            self.result.withLock { $0 = (result, loop.inLoop) }
            done.signal()
        }

        /// The result, once the completion has run (10 s at most).
        func wait() -> (Result<Socket, SocketError>, onLoop: Bool)? {
            guard done.wait(timeout: .now() + 10) == .success else { return nil }
            return result.withLock { $0 }
        }
    }

    private func dial(_ host: String, _ port: UInt16, on loop: EventLoop, within limit: Duration = .seconds(5)) -> Ended {
        let ended = Ended()
        loop.execute {
            _ = Dial.start(host: host, port: port, on: loop, until: .now + limit) { ended.hear($0, on: loop) }
        }
        return ended
    }

    @Test func anAddressWrittenAsOneConnectsAndTheCompletionRunsOnTheLoop() throws {
        let loop = try EventLoop(name: "test-dial")
        defer { loop.stop() }
        let (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let ended = dial("127.0.0.1", port, on: loop).wait()
        guard case (.success(let socket), let onLoop)? = ended else { Issue.record("not connected: \(String(describing: ended))"); return }
        defer { socket.close() }
        #expect(onLoop)
        guard case .client(let peer, _) = listener.accept() else { Issue.record("nothing to accept"); return }
        defer { peer.close() }
        #expect(socket.send(Array("hi".utf8)))
        var heard: [UInt8] = [], scratch = [UInt8](repeating: 0, count: 64)
        #expect(peer.waitReadable(milliseconds: 5000))
        _ = peer.receive(appendingTo: &heard, scratch: &scratch)
        #expect(heard == Array("hi".utf8))
    }

    @Test func aPortNobodyListensOnFailsSayingSo() throws {
        let loop = try EventLoop(name: "test-dial")
        defer { loop.stop() }
        let (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        listener.close()
        let ended = dial("127.0.0.1", port, on: loop).wait()
        guard case (.failure(let error), _)? = ended else { Issue.record("not failed: \(String(describing: ended))"); return }
        #expect(error.description == "cannot connect to 127.0.0.1:\(port): Connection refused")
    }

    @Test func aHostThatNeverAnswersFailsAtTheDeadlineNotBefore() throws {
        let loop = try EventLoop(name: "test-dial")
        defer { loop.stop() }
        let silent = try #require(UnansweredPort())
        let started = ContinuousClock.now
        let ended = dial("127.0.0.1", silent.port, on: loop, within: .milliseconds(200)).wait()
        guard case (.failure(let error), _)? = ended else { Issue.record("not failed: \(String(describing: ended))"); return }
        #expect(error.description == "cannot connect to 127.0.0.1:\(silent.port): no answer in time")
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    /// Cancelled, a dial closes its socket and never calls its completion, not even at its deadline: the loop's check
    /// after that deadline runs after where the dial's own would have.
    @Test func aCancelledDialClosesItsSocketAndIsNeverHeardOf() throws {
        let loop = try EventLoop(name: "test-dial")
        defer { loop.stop() }
        let (listener, _, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let heard = Atomic(false)
        let peer = Mutex<Socket?>(nil)
        let checked = DispatchSemaphore(value: 0)
        loop.execute {
            let deadline = ContinuousClock.now + .milliseconds(50)
            let dial = Dial.start(host: "127.0.0.1", port: port, on: loop, until: deadline) { result in
                if case .success(let socket) = result { socket.close() }
                heard.store(true, ordering: .relaxed)
            }
            // Connected, though the loop has not yet seen it: the far end is there to read the socket's end.
            if case .client(let accepted, _) = listener.accept() { peer.withLock { $0 = accepted } }
            dial.cancel()
            loop.schedule(at: deadline + .milliseconds(50)) { checked.signal() }
        }
        #expect(checked.wait(timeout: .now() + 10) == .success)
        let completed = heard.load(ordering: .relaxed)
        #expect(!completed, "the completion ran")
        let far = try #require(peer.withLock { $0 })
        defer { far.close() }
        var bytes: [UInt8] = [], scratch = [UInt8](repeating: 0, count: 64)
        #expect(far.waitReadable(milliseconds: 5000))
        #expect(far.receive(appendingTo: &bytes, scratch: &scratch) == .closed, "the socket was not closed")
    }
}
