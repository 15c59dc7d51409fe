import AccessToken
import Testing
@testable import ChannelEngine

/// A token from an outside server lives its lifetime of the call's time from its first arrival; the same bytes again
/// keep that arrival, unless they are a fresh build that drew the same salt.
@Suite struct TokenWallTests {
    private static let issued: UInt32 = 1_800_000_000

    private static func token(salt: UInt32) throws -> AgoraToken {
        let text = try AccessToken2.buildRTC(appID: "970CA35de60c44645bbae8a215061b33", appCertificate: "5cfd2fd1755d40ecb72977518be15d3b",
                                             channel: "test", user: .uid(42), role: .publisher, tokenExpire: 40, privilegeExpire: 40,
                                             issuedAt: issued, salt: salt)
        return try AgoraToken(parsing: text)
    }

    private final class Call: Sendable {}
    private static let call = Call()

    /// `token`'s end on the call's wall after `by` fetched it at call time `callNow`.
    private static func end(of token: AgoraToken, fetchedAt callNow: Double, on wall: TokenWall, by fetcher: AnyObject = call) -> Double {
        wall.fetched(token, at: callNow, by: fetcher)
        return wall.callTime(of: token.joinDeadline, in: token, arrivingAt: callNow)
    }

    @Test func aServerHandingOutOneTokenAgainDoesNotGiveItANewLife() throws {
        let real = Double(Self.issued)
        let wall = TokenWall.real(unixTime: { real })
        let one = try Self.token(salt: 7)
        #expect(Self.end(of: one, fetchedAt: 5_000, on: wall) == 5_040)
        #expect(Self.end(of: one, fetchedAt: 5_030, on: wall) == 5_040, "handed out again at once")
    }

    @Test func theSameBytesBuiltAgainInTheSameSecondAfterOtherTokensAreANewToken() throws {
        let real = Double(Self.issued) + 0.5
        let wall = TokenWall.real(unixTime: { real })
        let (first, other) = (try Self.token(salt: 7), try Self.token(salt: 8))
        #expect(Self.end(of: first, fetchedAt: 5_000, on: wall) == 5_040)
        #expect(Self.end(of: other, fetchedAt: 5_030, on: wall) == 5_070)
        #expect(Self.end(of: first, fetchedAt: 5_060, on: wall) == 5_100, "a fresh build that drew salt 7 again")
        #expect(wall.callTime(of: first.joinDeadline, in: first, arrivingAt: 5_090) == 5_100, "its checks read the new arrival")
    }

    @Test func anOldTokenHandedOutAgainLaterKeepsItsFirstArrivalEvenAfterOthers() throws {
        let real = Double(Self.issued) + 5
        let wall = TokenWall.real(unixTime: { real })
        let (first, other) = (try Self.token(salt: 7), try Self.token(salt: 8))
        #expect(Self.end(of: first, fetchedAt: 5_000, on: wall) == 5_040)
        #expect(Self.end(of: other, fetchedAt: 5_030, on: wall) == 5_070)
        #expect(Self.end(of: first, fetchedAt: 5_060, on: wall) == 5_040, "issued 5 real seconds ago: not a fresh build")
    }

    /// Two people's calls share a wall: B's tokens coming between A's are not A's server handing out something else.
    @Test func anotherCallsTokensBetweenDoNotMakeARepeatNew() throws {
        let real = Double(Self.issued)
        let wall = TokenWall.real(unixTime: { real })
        let (mine, theirs) = (try Self.token(salt: 7), try Self.token(salt: 8))
        let other = Call()
        #expect(Self.end(of: mine, fetchedAt: 5_000, on: wall) == 5_040)
        #expect(Self.end(of: theirs, fetchedAt: 5_010, on: wall, by: other) == 5_050)
        #expect(Self.end(of: mine, fetchedAt: 5_030, on: wall) == 5_040, "A's server handed A's token out again")
    }
}
