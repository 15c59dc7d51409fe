@testable import ChannelEngine
import Testing

@Suite struct VideoFrameTests {
    @Test func framesAreDeterministicAndDistinctPerUid() {
        let a = VideoFrameSource(uid: 1001), b = VideoFrameSource(uid: 2002)
        let frameA = a.frame(at: .seconds(3), width: 40, height: 20)
        let same = frameA == VideoFrameSource(uid: 1001).frame(at: .seconds(3), width: 40, height: 20)
        let distinct = frameA != b.frame(at: .seconds(3), width: 40, height: 20)
        #expect(same && distinct)
        #expect(frameA.pixels.count == 800)
    }

    @Test func everyPatternMovesWithTime() {
        var seen = Set<VideoFrameSource.Pattern>()
        for uid in UInt(1)...200 {
            let source = VideoFrameSource(uid: uid)
            seen.insert(source.pattern)
            let moved = source.frame(at: .seconds(1), width: 60, height: 30) != source.frame(at: .milliseconds(1300), width: 60, height: 30)
            #expect(moved, "uid \(uid) (\(source.pattern)) does not move")
        }
        #expect(seen.count == VideoFrameSource.Pattern.allCases.count)
    }

    @Test func likeRealVideoOnlyWhatMovesChanges() {
        for uid in UInt(1)...40 {
            let source = VideoFrameSource(uid: uid)
            let before = source.frame(at: .seconds(4), width: 60, height: 40, pixelShape: .init(width: 2, height: 1))
            let after = source.frame(at: .milliseconds(4100), width: 60, height: 40, pixelShape: .init(width: 2, height: 1))
            let changed = zip(before.pixels, after.pixels).filter { $0 != $1 }.count
            #expect(changed > 0 && changed * 10 < before.pixels.count, "uid \(uid): \(changed) of \(before.pixels.count) pixels changed in 100 ms")
        }
    }

    @Test func theBallIsRoundOnScreen() {
        // Pixels twice as wide as tall: the ball spans half as many columns as rows. On stripes, the ball's colour is
        // the rarest of three.
        let uid = (UInt(1)...).first { VideoFrameSource(uid: $0).pattern == .stripes }!
        let frame = VideoFrameSource(uid: uid).frame(at: .seconds(2), width: 80, height: 80, pixelShape: .init(width: 2, height: 1))
        let accent = Dictionary(grouping: frame.pixels, by: { $0 }).min { $0.value.count < $1.value.count }!.key
        let spots = frame.pixels.indices.filter { frame.pixels[$0] == accent }
        let columns = Set(spots.map { $0 % 80 }).count, rows = Set(spots.map { $0 / 80 }).count
        #expect(abs(rows - 2 * columns) <= 2, "\(columns) columns, \(rows) rows")
    }

    @Test func aFrozenSourceShowsTheMomentItFroze() {
        let frozen = VideoFrameSource(uid: 77, frozenAt: .seconds(5))
        let live = VideoFrameSource(uid: 77)
        let showsFreezeMoment = frozen.frame(at: .seconds(9), width: 50, height: 25) == live.frame(at: .seconds(5), width: 50, height: 25)
        let staysStill = frozen.frame(at: .seconds(9), width: 50, height: 25) == frozen.frame(at: .seconds(60), width: 50, height: 25)
        #expect(showsFreezeMoment && staysStill)
    }

    @Test func oddSizesNeitherCrashNorAllocateWrongly() {
        let source = VideoFrameSource(uid: 5)
        for (w, h) in [(0, 0), (1, 1), (0, 10), (3, 1), (300, 200)] {
            #expect(source.frame(at: .seconds(1), width: w, height: h).pixels.count == w * h)
        }
    }

    @Test func luminanceWeighsGreenMost() {
        #expect(Pixel(red: 0, green: 255, blue: 0).luminance > Pixel(red: 255, green: 0, blue: 0).luminance)
        #expect(Pixel(red: 255, green: 255, blue: 255).luminance == 255)
    }
}
