import Foundation
import TestSupport
import Testing

/// Issue 31, item 10: the farm's Redis killed in the middle of a call and started again empty, with two `tokencall
/// join` clients in one channel.
@Suite(.serialized, .enabled(if: HubFarm.available, "needs haproxy and redis-server: make deps"))
struct RedisOutageTests {
    /// Back within a lease's life (3 s): the hub takes its key again at its next renewal and nobody is disturbed.
    @Test func redisBackEmptyWithinALeasesLifeDisturbsNobody() async throws {
        try await onOwnThread {
            try self.outage(seconds: 1) { farm, members, marks in
                try ScaleOutTests.wait(10, "the channel's lease held again") { try farm.owner(of: "alpha") != nil }
                Thread.sleep(forTimeInterval: 1.5)  // a renewal more, and time for a close to reach the clients' output
                for (member, mark) in zip(members, marks) {
                    #expect(!member.saw("connectionStateChanged", from: mark), "uid \(member.uid):\n\(member.events(from: mark).joined(separator: "\n"))")
                }
            }
        }
    }

    /// Down longer: the hub gives the channel up (1001, saying why), its clients are refused (4503) until Redis is
    /// back, then meet again on one hub without anyone seeing the other leave.
    @Test func redisDownLongerThanALeasesLifeBringsTheCallBackTogetherWithoutABlip() async throws {
        try await onOwnThread {
            try self.outage(seconds: 5) { farm, members, marks in
                try ScaleOutTests.wait(30, "both clients back in the channel") {
                    zip(members, marks).allSatisfy { $0.0.saw("didRejoinChannel", from: $0.1) }
                }
                for (member, mark) in zip(members, marks) {
                    let seen = member.events(from: mark).joined(separator: "\n")
                    #expect(member.saw("simulatorNotice", "1001: the hub cannot reach the store of channel owners", from: mark), "\(seen)")
                    #expect(!member.saw("didOfflineOfUid", from: mark) && !member.saw("didJoinedOfUid", from: mark), "a blip:\n\(seen)")
                }
            }
        }
    }

    /// Two clients in `alpha` see each other's video; Redis is killed for `seconds`, started again empty, and `check`
    /// looks at what followed (each client's events from its mark).
    private func outage(seconds: Double,
                        _ check: (HubFarm, [ScaleOutTests.Member], [Int]) throws -> Void) throws {
        let farm = try HubFarm(redis: true)
        var members: [ScaleOutTests.Member] = []
        for uid in UInt32(1)...2 {
            let (_, output) = try farm.join(channel: "alpha", uid: uid, seconds: 600)
            members.append(ScaleOutTests.Member(channel: "alpha", uid: uid, output: output))
        }
        try ScaleOutTests.wait(60, "every client sees its peer's video") { members.allSatisfy { $0.saw("firstRemoteVideoFrame", #""uid": \#($0.peer)"#) } }
        let marks = members.map { $0.events().count }
        farm.killRedis()
        Thread.sleep(forTimeInterval: seconds)  // the outage itself
        try farm.startRedis()
        try check(farm, members, marks)
    }
}
