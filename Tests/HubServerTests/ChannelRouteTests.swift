@testable import HubServer
import TestSupport
import Testing
import TokenServer

@Suite struct ChannelRouteTests {
    @Test func theChannelIsReadAsABalancerReadsIt() throws {
        #expect(try ChannelRoute.read(target: "/hub").get() == nil)
        #expect(try ChannelRoute.read(target: "/hub?channel=standup").get() == "standup")
        #expect(try ChannelRoute.read(target: "/hub?x=1&channel=a-b.c_d~e!$(),;:@&y").get() == "a-b.c_d~e!$(),;:@")
        #expect(try ChannelRoute.read(target: "/hub?channels=x&xchannel=y").get() == nil)
    }

    @Test(arguments: [
        ("/hub?channel=a&channel=test", "names channel 2 times"),
        ("/hub?channel=%74est", "percent-encoded"),
        ("/hub?channel=te+st", "percent-encoded"),
        ("/hub?%63hannel=test", "escaped \"channel\""),
        ("/hub?channel=", "empty"),
    ])
    func aURLABalancerAndTheHubWouldReadDifferentlyIsRefused(target: String, words: String) {
        guard case .failure(let refusal) = ChannelRoute.read(target: target) else {
            Issue.record("\(target) was not refused")
            return
        }
        #expect(refusal.message.contains(words), "\(refusal.message)")
    }

    @Test func overTheWireTheUpgradeIsRefusedWith400SayingWhy() throws {
        let loopback = try LoopbackHub()
        for target in ["/hub?channel=a&channel=test", "/hub?channel=%74est"] {
            let client = try WebSocketTestClient(port: loopback.server.port)
            let head = try client.handshake("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 400"), "\(head)")
        }
        // The same channel, once and as it is, opens.
        _ = try WebSocketTestClient.open(port: loopback.server.port, path: "/hub?channel=test")
    }
}
