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
