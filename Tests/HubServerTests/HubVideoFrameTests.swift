import HubProtocol
import Testing

@Suite struct HubVideoFrameTests {
    typealias Color = HubVideoFrame.Color
    let red = Color(red: 200, green: 10, blue: 10), blue = Color(red: 0, green: 0, blue: 255)

    @Test func aFrameReadsBackAsItself() throws {
        let cells = (0..<(32 * 18)).map { $0 % 7 == 0 ? red : blue }
        let frame = try #require(HubVideoFrame(uid: 0xA1B2_C3D4, columns: 32, rows: 18, cells: cells))
        #expect(try HubVideoFrame(decoding: frame.encoded) == frame)
    }

    @Test func runsOfOneColourShrinkAFrameAndNoneIsLongerThan255() throws {
        let frame = try #require(HubVideoFrame(columns: 32, rows: 18, cells: Array(repeating: red, count: 576)))
        // 576 cells of one colour: runs of 255, 255 and 66.
        #expect(frame.encoded == [1, 0, 0, 0, 0, 32, 18, 255, 200, 10, 10, 255, 200, 10, 10, 66, 200, 10, 10])
    }

    @Test func theWorstFrameOfTheSentSizeFitsTheLimit() throws {
        let cells = (0..<(HubVideoFrame.sentColumns * HubVideoFrame.sentRows)).map { $0 % 2 == 0 ? red : blue }
        let frame = try #require(HubVideoFrame(columns: HubVideoFrame.sentColumns, rows: HubVideoFrame.sentRows, cells: cells))
        #expect(frame.encoded.count == 7 + 4 * 576)
        #expect(frame.encoded.count <= HubVideoFrame.maxBytes)
    }

    @Test func cellsThatDoNotMatchTheSizeMakeNoFrame() {
        #expect(HubVideoFrame(columns: 2, rows: 2, cells: [red, red, red]) == nil)
        #expect(HubVideoFrame(columns: 0, rows: 0, cells: []) == nil)
        #expect(HubVideoFrame(columns: 256, rows: 1, cells: Array(repeating: red, count: 256)) == nil)
    }

    @Test(arguments: [
        ([1, 0, 0, 0, 0, 2, 1, 3, 1, 2, 3], "more than its 2×1"),
        ([1, 0, 0, 0, 0, 2, 1, 1, 1, 2, 3], "hold 1 cells, not its 2×1"),
        ([1, 0, 0, 0, 0, 2, 1, 0, 1, 2, 3, 2, 1, 2, 3], "run of 0"),
        ([1, 0, 0, 0, 0, 2, 1, 2, 1, 2], "4 bytes each"),
        ([2, 0, 0, 0, 0, 2, 1, 2, 1, 2, 3], "not a version 1"),
        ([1, 0, 0, 0, 0, 0, 1], "not a version 1"),
    ] as [([UInt8], String)])
    func aBrokenFrameIsRefusedWithWhatIsWrong(bytes: [UInt8], words: String) {
        #expect {
            try HubVideoFrame(decoding: bytes)
        } throws: { error in
            (error as? HubProtocolError)?.description.contains(words) == true
        }
    }

    @Test func aFrameOverTheLimitIsRefusedBeforeItIsRead() {
        let bytes: [UInt8] = [1, 0, 0, 0, 0, 255, 255] + Array(repeating: 1, count: HubVideoFrame.maxBytes)
        #expect(throws: HubProtocolError.self) { try HubVideoFrame(decoding: bytes) }
    }
}
