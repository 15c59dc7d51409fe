import Testing
@testable import Sockets

/// An address a lookup found is kept whole, whatever its family: a connect made from it reaches the listener there.
@Suite struct SocketAddressTests {
    @Test(arguments: ["127.0.0.1", "::1"])
    func aConnectFromALookedUpAddressReachesTheListenerThere(host: String) throws {
        let (listener, _, port) = try Socket.listen(host: host, port: 0)
        defer { listener.close() }
        let client = try Socket.connect(host: host, port: port, until: .now + .seconds(5))
        defer { client.close() }
        #expect(listener.waitReadable(milliseconds: 5_000))
        guard case .client(let accepted, let address) = listener.accept() else {
            Issue.record("the listener on \(host) accepted nothing")
            return
        }
        accepted.close()
        #expect(address == host)
    }
}
