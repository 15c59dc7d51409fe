// libFuzzer entry point for `Scenario(parsing:)`, which reads a `tokencall test` scenario file.
//
// Built by Scripts/fuzz.sh together with Sources/Scenarios/*.swift into one module named Scenarios (PrintableText
// built first). The whole input is the file. Besides crashes, the harness traps when a promise breaks: a refusal
// that names no line of the file or runs over more than one line or holds a control character, steps out of line
// order, a wait or a check longer than the limit, a check naming an event or a field the vocabulary lacks, or a step
// of the whole scenario's (wait, the server's) given to one person with a prefix.

import PrintableText

private let vocabulary = ScenarioVocabulary(
    events: ["connectionStateChanged": ["state", "reason"], "tokenPrivilegeWillExpire": [], "tokenRenewed": ["method"],
             "note": ["text"], "tokenFetched": ["latency", "expiresAt"]],
    states: ["disconnected", "connecting", "connected", "reconnecting", "failed"],
    mistakes: ["wrong-uid", "wrong-channel", "stale"], userLimit: 16)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
    do {
        let scenario = try Scenario(parsing: bytes, name: "fuzz", file: "fuzz.scenario", vocabulary: vocabulary)
        var last = 0
        for step in scenario.steps {
            if step.line <= last || step.line > lines { fatalError("step line \(step.line) out of order or past the file") }
            last = step.line
            if step.text.unicodeScalars.contains(where: { $0 != "\t" && $0.isUnsafeToPrint }) { fatalError("a step kept a control character") }
            switch step.action {
            case .wait, .server, .misconfigure:
                if step.participant != .a || step.text.utf8.first == UInt8(ascii: "A") { fatalError("the scenario's step given to one person") }
            default: break
            }
            switch step.action {
            case .wait(let duration), .expect(_, let duration), .expectNo(_, let duration):
                if duration > .milliseconds(Scenario.longestMilliseconds) || duration < .zero { fatalError("a duration past the limit") }
            default: break
            }
            switch step.action {
            case .expect(let match, _), .expectNo(let match, _):
                guard let fields = vocabulary.events[match.event] else { fatalError("an unknown event accepted") }
                if match.fields.contains(where: { !fields.contains($0.name) }) { fatalError("an unknown field accepted") }
            case .expectState(let state):
                if !vocabulary.states.contains(state) { fatalError("an unknown state accepted") }
            case .users(let count):
                if count < 0 || count > vocabulary.userLimit { fatalError("a user count past the limit") }
            default: break
            }
        }
    } catch {
        if error.line < 1 || error.line > lines { fatalError("a refusal names line \(error.line) of \(lines)") }
        let words = error.description
        if words.unicodeScalars.contains(where: { $0.isUnsafeToPrint || $0 == "\n" }) { fatalError("a refusal that is not one printable line") }
    }
    return 0
}
