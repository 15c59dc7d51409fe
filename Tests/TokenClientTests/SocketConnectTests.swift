import Sockets
import Testing

/// `Socket.connect` to a host that never answers: what the token transport's cancel relies on.
@Suite struct SocketConnectTests {
    /// A listener on 127.0.0.1 whose backlog is full, so that the kernel drops further SYNs as a black-holed host does,
    /// and the connections that filled it.
    static func blackHole() throws -> (listener: Socket, port: UInt16, queued: [Socket]) {
        let (listener, host, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 0)
        var queued: [Socket] = []
        while queued.count < 16 {
            do { queued.append(try Socket.connect(host: host, port: port, until: .now + .milliseconds(300))) } catch {
                #expect(error.reason == "no answer in time")
                return (listener, port, queued)
            }
        }
        Issue.record("16 connections were queued without accept; the kernel did not drop the next SYN")
        return (listener, port, queued)
    }

    @Test func aConnectNobodyAnswersEndsSoonAfterItsCallerHasGone() throws {
        let (listener, port, queued) = try Self.blackHole()
        defer { ([listener] + queued).forEach { $0.close() } }
        #expect(throws: SocketError.abandoned) {
            try Socket.connect(host: "127.0.0.1", port: port, until: .now + .seconds(60), abandoned: { true })
        }
    }
}
