import CallSession
import Foundation
import Recording
import Testing

@Suite struct RecordingFileTests {
    private let header = RecordingFixtures.header.line
    private let event = SessionEvent(time: .milliseconds(1500), kind: .tokenRenewed(method: .renew)).recordedLine

    private func read(_ text: String) -> RecordingError? {
        do {
            _ = try Recording.read(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func aRecordingCutShortSaysWhichLine() {
        let cut = read(header + "\n" + event + "\n" + event.prefix(20))
        #expect(cut == .cutShort(line: 3))
        #expect(cut?.description == "line 3 has no newline: the recording was cut short (its join stopped while writing); head -n -1 keeps its whole lines")
        #expect(read("") == .badLine(line: 1, problem: "the file is empty, with no header"))
    }

    @Test func aBrokenEventSaysWhichLineAndWhat() throws {
        let broken = try #require(read(header + "\n" + event + "\n{\"t\": 2.000, \"event\": \"tokenRenewed\", \"method\": \"fax\"}\n"))
        #expect(broken == .badLine(line: 3, problem: "tokenRenewed's \"method\" is not one of renew, update, rejoin"))
        #expect(broken.description.hasPrefix("line 3: tokenRenewed's \"method\""))
        #expect(read(header + "\nnot json\n") == .badLine(line: 2, problem: "not JSON: a word that is not true, false or null at byte 0"))
        #expect(read(header + "\n{\"t\": 2.000, \"event\": \"launchRockets\"}\n") == .badLine(line: 2, problem: "\"launchRockets\" is not an event tokencall records"))
        #expect(read(header + "\n{\"t\": 2, \"event\": \"requestToken\"}\n")
                == .badLine(line: 2, problem: "requestToken's \"t\" must be seconds with three decimals, not a number"))
        #expect(read(header + "\n\n") == .badLine(line: 2, problem: "the line is empty"))
        let long = String(repeating: "x", count: 500)
        #expect(read(header + "\n{\"t\": 2.000, \"event\": \"\(long)\"}\n")
                == .badLine(line: 2, problem: "\"\(long.prefix(40))…\" is not an event tokencall records"), "a long name is not repeated whole")
    }

    @Test func aMemberTooManyOrOneThatDisagreesIsRefused() {
        let extra = event.dropLast() + ", \"token\": \"007abc\"}"
        #expect(read(header + "\n" + extra + "\n") == .badLine(line: 2, problem: "tokenRenewed's members are not the ones it has, or disagree with each other"))
        let disagreeing = SessionEvent(time: .seconds(1), kind: .engine(.reportRtcStats(.init()))).recordedLine
            .replacingOccurrences(of: "\"users\": 0, \"stats\"", with: "\"users\": 5, \"stats\"")
        #expect(disagreeing.contains("\"users\": 5"))
        #expect(read(header + "\n" + disagreeing + "\n") == .badLine(line: 2, problem: "reportRtcStats's members are not the ones it has, or disagree with each other"))
    }

    @Test func aUnixTimeBeyondWhatATokenHoldsIsRefused() {
        let line = SessionEvent(time: .seconds(1), kind: .tokenPasted(expiresAt: 1_800_000_000)).recordedLine
        #expect(read(header + "\n" + line + "\n") == nil)
        for wrong in ["-1", "4294967296", "-9223372036854775808"] {
            let edited = line.replacingOccurrences(of: "1800000000", with: wrong)
            #expect(read(header + "\n" + edited + "\n")
                    == .badLine(line: 2, problem: "tokenPasted's \"expiresAt\" must be a whole number from 0 to 4294967295, not a number"))
        }
    }

    @Test func aLineTooLongIsRefusedBeforeItIsParsed() {
        let long = "{\"t\": 1.000, \"event\": \"note\", \"text\": \"" + String(repeating: "a", count: Recording.lineLimit) + "\"}"
        #expect(read(header + "\n" + long + "\n") == .badLine(line: 2, problem: "longer than \(Recording.lineLimit) bytes"))
    }

    @Test func aNewerVersionAsksForANewerTokencall() throws {
        let newer = header.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        let error = try #require(read(newer + "\n"))
        #expect(error == .newerVersion(2))
        #expect(error.description.contains("replay it with a newer tokencall"))
        #expect(read("{\"format\": \"asciicast\", \"version\": 2}\n") == .badLine(line: 1, problem: "the header's format is not \"tokencall-recording\""))
    }

    @Test func aHeaderWithAMemberTooManyIsRefused() {
        let extra = header.replacingOccurrences(of: "\"options\": {", with: "\"extra\": 1, \"options\": {")
        #expect(read(extra + "\n") == .badLine(line: 1, problem: "the header's members are not the ones it has (one too many, or one written otherwise)"))
    }

    /// A gigabyte is refused by its size, before any of it is read (reading would take the 256 MB allowed first).
    @Test func aFileLargerThanARecordingIsRefusedByItsSize() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-huge-\(UUID().uuidString).jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)  // sparse: no disk is spent
        try handle.close()
        #expect(throws: RecordingError.fileTooLarge(size: 1 << 30, limit: Recording.byteLimit)) { try Recording.read(path: path) }
        #expect(RecordingError.fileTooLarge(size: 1 << 30, limit: Recording.byteLimit).description
            == "the file is 1073741824 bytes, more than the 268435456 a recording may hold; it is not a recording tokencall wrote")
    }
}
