import Foundation
import Testing
@testable import CallSession

@Suite struct SessionEventTests {
    /// A token server's error reaches the output as text, never as escape sequences for the terminal.
    @Test func controlCharactersFromOutsideArePrintedNotSent() {
        let hostile = "bad\u{1B}[2J\u{1B}[41mINJECTED\rX\u{9B}31m"
        let event = SessionEvent(time: .seconds(1), kind: .tokenFetchFailed(error: hostile, retryIn: nil))
        for line in [event.textLine, event.jsonLine] {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
            #expect(line.contains(#"\u001b[2J"#) && line.contains(#"\u009b31m"#), "\(line)")
        }
    }

    /// The settings the screen reads are typed, and print as the notes scripts already read.
    @Test func settingChangesPrintAsTheNotesTheyWere() {
        let method = SessionEvent(time: .seconds(1), kind: .renewMethodChanged(.update))
        #expect(method.textLine == #"[   1.000s] note text="renew method update""#)
        #expect(method.jsonLine == #"{"t": 1.000, "event": "note", "text": "renew method update"}"#)
        let auto = SessionEvent(time: .milliseconds(12_345), kind: .autoRenewChanged(on: false))
        #expect(auto.textLine == #"[  12.345s] note text="auto-renew off""#)
        #expect(auto.jsonLine == #"{"t": 12.345, "event": "note", "text": "auto-renew off"}"#)
        #expect(SessionEvent(time: .zero, kind: .autoRenewChanged(on: true)).noteText == "auto-renew on")
    }

    @Test func theTextLineIsTheNameAndTheDetail() {
        let state = SessionEvent(time: .seconds(2), kind: .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)))
        #expect(state.detail == "state=connected reason=joinSuccess")
        #expect(state.textLine == "[   2.000s] connectionStateChanged state=connected reason=joinSuccess")
        #expect(state.noteText == nil)
        let failed = SessionEvent(time: .seconds(3), kind: .tokenFetchFailed(error: "refused", retryIn: nil))
        #expect(failed.detail == "error=refused")
        #expect(failed.textLine == "[   3.000s] tokenFetchFailed error=refused")
        let bare = SessionEvent(time: .seconds(4), kind: .engine(.requestToken))
        #expect(bare.detail == "")
        #expect(bare.textLine == "[   4.000s] requestToken")
    }

    /// A text line's fields as a script reads them: `key=value` apart at any white space, a value starting with `"`
    /// read as a JSON string (Docs/events.md).
    private func fields(_ detail: String) throws -> [[String]] {
        var scalars = Substring(detail).unicodeScalars[...], fields: [[String]] = []
        while true {
            scalars = scalars.drop { $0.properties.isWhitespace }
            guard !scalars.isEmpty else { return fields }
            let key = scalars.prefix { $0 != "=" && !$0.properties.isWhitespace }
            scalars = scalars.dropFirst(key.count)
            guard scalars.first == "=" else { fields.append([String(key)]); continue }
            scalars = scalars.dropFirst()
            var value = scalars.prefix { !$0.properties.isWhitespace }
            if scalars.first == "\"" {
                var end = scalars.index(after: scalars.startIndex), escaped = false
                while end < scalars.endIndex, escaped || scalars[end] != "\"" {
                    escaped = !escaped && scalars[end] == "\\"
                    end = scalars.index(after: end)
                }
                value = scalars[...min(end, scalars.index(before: scalars.endIndex))]
                let text = try JSONSerialization.jsonObject(with: Data("[\(String(value))]".utf8)) as? [String]
                fields.append([String(key), try #require(text?.first)])
            } else {
                fields.append([String(key), String(value)])
            }
            scalars = scalars.dropFirst(value.count)
        }
    }

    /// A hub's or a server's words cannot pass for fields of their own: a value with a quote, a backslash or any
    /// white space (a no-break space too) is a JSON string, and the line reads back as the real fields.
    @Test(arguments: ["a\"\u{A0}notice=stuck\u{A0}reason=\"forged", "x\" notice=stuck reason=\"y", "tab\tthen=2", #"back\"slash"#, ""])
    func aValueFromOutsideReadsBackAsOneField(forged: String) throws {
        let hub = SessionEvent(time: .seconds(5), kind: .engine(.simulatorNotice(.hubError(forged))))
        #expect(try fields(hub.detail) == [["notice", "hubError"], ["message", forged]], "\(hub.textLine)")
        let server = SessionEvent(time: .seconds(5), kind: .tokenFetchFailed(error: forged, retryIn: .seconds(2)))
        #expect(try fields(server.detail) == [["error", forged], ["retryIn", "2.000s"]], "\(server.textLine)")
        #expect(!hub.textLine.unicodeScalars.contains { $0.properties.isWhitespace && $0 != " " }, "only plain spaces part the fields")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(hub.jsonLine.utf8)) as? [String: Any])
        #expect(json["message"] as? String == forged)
    }

    /// What a scenario's checks may name (`SessionEvent.fieldNames`) is every event Docs/events.md lists, and an event's
    /// fields as it writes them are among the names given for it.
    @Test func theNamesChecksMayUseAreTheEventsDocumented() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/events.md").standardized
        let rows = try String(contentsOf: page, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("| `") }
        let documented = Set(rows.flatMap { row in
            row.split(separator: "|")[0].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        })
        #expect(documented.count >= 30)
        #expect(documented.subtracting(SessionEvent.fieldNames.keys).isEmpty, "\(documented.subtracting(SessionEvent.fieldNames.keys))")
        let samples: [SessionEvent.Kind] = [
            .engine(.connectionStateChanged(.connected, reason: .reasonJoinSuccess)), .engine(.didOccurError(.invalidToken)),
            .engine(.simulatorNotice(.tokenAccepted(expiresAt: 1, short: false))), .engine(.simulatorNotice(.hubLost(reason: "x"))),
            .engine(.didClientRoleChanged(old: .audience, new: .broadcaster)), .tokenFetched(latency: .zero, expiresAt: 1),
            .tokenFetchFailed(error: "x", retryIn: nil), .tokenRenewed(method: .renew), .tokenNeeded(secondsLeft: 1),
            .autoRenewChanged(on: true), .stuck(reason: "x"), .sessionEnded(failed: false),
        ]
        for kind in samples {
            let event = SessionEvent(time: .zero, kind: kind)
            let names = try #require(SessionEvent.fieldNames[event.name], "\(event.name)")
            #expect(event.fields.allSatisfy { names.contains($0.0) }, "\(event.jsonLine)")
        }
    }
}
