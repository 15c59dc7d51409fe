@testable import HubClient
@testable import HubLoad
import HubProtocol
import Testing
import TokenClient

@Suite struct LoadFiguresTests {
    @Test func percentilesAreOfTheSortedSamples() throws {
        let latency = try #require(LoadFigures.Latency((1...100).reversed().map { Duration.milliseconds($0) }))
        #expect((latency.count, latency.p50, latency.p99) == (100, .milliseconds(50), .milliseconds(99)))
        #expect(LoadFigures.Latency([]) == nil)
    }

    @Test func aTimedFrameSaysWhenItWasSentOnTheWire() throws {
        let sent = Duration.seconds(3_600) + .microseconds(123_456)
        let frame = try HubVideoFrame(decoding: TimedFrame.make(sentAt: sent).encoded)
        #expect(TimedFrame.sentAt(frame) == sent)
        #expect(frame.encoded.count <= 7 + 4 * 5)  // flat: a few runs, not 576 cells
    }

    @Test func aFailedFetchCountsUnderItsErrorsKindWhateverItsDetails() {
        #expect(LoadPlan.kind(of: TokenClientError.server(status: 500, message: "down at 03:00")) == "server")
        #expect(LoadPlan.kind(of: TokenClientError.rateLimited(status: 429, retryAfter: nil)) == "rateLimited")
        #expect(LoadPlan.kind(of: CancellationError()) == "CancellationError")
    }

    @Test func figuresPrintErrorsEscapedAndAsJSON() {
        let tally = LoadTally(names: ["join"])
        tally.record("join", .milliseconds(12))
        tally.error("hub error\u{1B}")
        tally.lost()
        let figures = tally.figures
        #expect(figures.text == "join           1 samples  p50 12.0 ms  p99 12.0 ms\nerrors: hub error\\u001b ×1\nconnections lost: 1")
        #expect(figures.json == #"{"connectionsLost":1,"errors":{"hub error\u001b":1},"join":{"count":1,"p50Ms":12,"p99Ms":12}}"#)
    }

    @Test func aLongNameStaysApartFromItsFigures() {
        let tally = LoadTally(names: [Measure.tokenFetch, Measure.stampede])
        tally.record(Measure.stampede, .milliseconds(20))
        let lines = tally.figures.text.split(separator: "\n")
        #expect(lines.contains("renewalStampede  1 samples  p50 20.0 ms  p99 20.0 ms"), "\(lines)")
        #expect(lines.first?.hasPrefix(Measure.tokenFetch + "  ") == true && lines.first?.hasSuffix("none") == true)
    }
}

@Suite struct LoadFiguresByHubTests {
    @Test func joinsAreCountedByTheHubThatAnsweredThemAndHubNamesAreEscaped() throws {
        let tally = LoadTally(names: [Measure.join])
        tally.recordJoin(.milliseconds(10), on: "hub1")
        tally.recordJoin(.milliseconds(30), on: "hub2")
        tally.recordJoin(.milliseconds(20), on: "hub1")
        let figures = tally.figures
        #expect(figures.joinsByHub.map(\.hub) == ["hub1", "hub2"])
        #expect(figures.joinsByHub.first?.latency?.count == 2)
        #expect(figures.latencies.first?.latency?.count == 3)
        #expect(figures.text.contains("on hub hub2: 1 joins"))
        #expect(figures.json.contains(#""joinsByHub":{"hub1":{"count":2"#))
    }

    @Test func aHandshakeAnswerNamesItsHubOnlyInTheLettersAllowed() {
        func name(_ header: String) -> String? {
            HubConnectionMachine.hubName(inAnswer: Array("HTTP/1.1 101 Switching Protocols\r\n\(header)".utf8)[...])
        }
        #expect(name("x-tokencall-hub: hub2") == "hub2")
        #expect(name("X-Tokencall-Hub: \u{1b}[2Jhub") == nil)
        #expect(name("X-Tokencall-Hub: " + String(repeating: "h", count: 65)) == nil)
        #expect(name("Upgrade: websocket") == nil)
    }
}
