import ScenarioRunner
import Scenarios
import Testing

/// A scenario file as a person writes it: what reads, and what is refused with its line and the word meant.
struct ScenarioReaderTests {
    private func read(_ text: String) throws(ScenarioError) -> Scenario {
        try Scenario(parsing: Array(text.utf8), name: "s", file: "s.scenario", vocabulary: .session)
    }

    private func refusal(_ text: String) -> String? {
        do throws(ScenarioError) { _ = try read(text) } catch { return error.description }
        return nil
    }

    @Test func stepsReadWithTheirLinesCommentsAndBlankLinesLeftOut() throws {
        let scenario = try read("""
            # renewals
            method update   # as the app does
            join\r

            expect connectionStateChanged state=connected reason=joinSuccess within 250ms
            expect no note text="a # b" for 1d
            expect state connected
            expect fetches 2
            wait 10m
            """)
        #expect(scenario.steps.map(\.line) == [2, 3, 5, 6, 7, 8, 9])
        #expect(scenario.steps[0] == ScenarioStep(line: 2, text: "method update", action: .method(.update)))
        #expect(scenario.steps[2].action == .expect(EventMatch(event: "connectionStateChanged", fields: [
            .init(name: "state", value: "connected"), .init(name: "reason", value: "joinSuccess")]), within: .milliseconds(250)))
        #expect(scenario.steps[3].action == .expectNo(EventMatch(event: "note", fields: [.init(name: "text", value: "a # b")]), for: .seconds(86_400)))
        #expect(scenario.steps[6].action == .wait(.seconds(600)))
    }

    /// Issue 35: a scenario written in Android's or the Web's words reads as one in iOS's (the events' `--json` names).
    @Test func eventsReadInAnySDKsWords() throws {
        let android = try read("expect onTokenPrivilegeWillExpire within 15s\nexpect onRequestToken within 1m")
        let web = try read("expect token-privilege-will-expire within 15s\nexpect connection-state-change state=connected within 1s")
        #expect(android.steps.map(\.action) == [
            .expect(EventMatch(event: "tokenPrivilegeWillExpire", fields: []), within: .seconds(15)),
            .expect(EventMatch(event: "requestToken", fields: []), within: .seconds(60))])
        #expect(web.steps.map(\.action) == [
            .expect(EventMatch(event: "tokenPrivilegeWillExpire", fields: []), within: .seconds(15)),
            .expect(EventMatch(event: "connectionStateChanged", fields: [.init(name: "state", value: "connected")]), within: .seconds(1))])
    }

    @Test func aMisspeltWordIsRefusedOnItsLineWithTheWordMeant() {
        #expect(refusal("join\nrenwe\n") == "s.scenario:2: renwe? did you mean renew? (a step starts with join, leave, rejoin, renew, "
                + "method, auto-renew, role, account, expire, cut, restore, stop, start, misconfigure, paste, users, wait, expect)")
        #expect(refusal("join\n\nexpect tokenRenewd within 2m") == "s.scenario:3: tokenRenewd? did you mean tokenRenewed? "
                + "(events are named as --json names them, Docs/events.md)")
        #expect(refusal("expect connectionStateChanged stat=failed within 1s")
                == "s.scenario:1: stat? did you mean state? (connectionStateChanged's fields are state, reason)")
        #expect(refusal("misconfigure stael") == "s.scenario:1: stael? did you mean stale? (misconfigure takes none, wrong-uid, wrong-channel, wrong-app, stale, expired)")
    }

    @Test func whatIsNotAStepSaysWhatIsWrong() {
        #expect(refusal("wait 30") == "s.scenario:1: 30 is not a duration: a whole number and ms, s, m, h or d, such as 250ms, 30s, 10m, 2h, 1d")
        #expect(refusal("wait 8d") == "s.scenario:1: 8d is longer than a scenario step may last, 7d")
        #expect(refusal("wait 99999999999999999d")?.hasPrefix("s.scenario:1: 99999999999999999d is not a duration") == true)
        #expect(refusal("expect tokenRenewed") == "s.scenario:1: a check reads expect EVENT [field=value ...] within DURATION; "
                + "this one does not end with within DURATION")
        #expect(refusal("users 17") == "s.scenario:1: users takes a number of remote users, 0...16, not 17")
        #expect(refusal("join now") == "s.scenario:1: join takes nothing after it, not now")
        #expect(refusal("paste \u{1b}[2J") == "s.scenario:1: the line holds a control or format character, \\u001b; write it out")
        #expect(refusal("expect note text=\"open within 1s") == "s.scenario:1: a quote opened on this line is never closed")
    }

    /// Issue 34: `B:` puts a step on the second person's call; a step without a prefix (or with `A:`) stays A's, so a
    /// one-person scenario reads as it did.
    @Test func aPrefixNamesWhoseCallAStepIsOn() throws {
        let scenario = try read("join\nB: join   # the second person\nA: renew\n  B:\texpect didOfflineOfUid reason=dropped within 21s\nwait 1s")
        #expect(scenario.steps.map(\.participant) == [.a, .b, .a, .b, .a])
        #expect(scenario.steps[1] == ScenarioStep(line: 2, text: "B: join", participant: .b, action: .join))
        #expect(scenario.steps[3].action == .expect(EventMatch(event: "didOfflineOfUid", fields: [.init(name: "reason", value: "dropped")]),
                                                     within: .seconds(21)))
        let alone = try read("join\nA: leave")
        #expect(scenario.hasSecondParticipant && !alone.hasSecondParticipant)
    }

    @Test func aPrefixThatIsNotAPersonsIsRefusedOnItsLine() {
        #expect(refusal("join\nb: join") == "s.scenario:2: b:? did you mean B:? (a step is A's without a prefix or with A:, B's with B:)")
        #expect(refusal("C: join") == "s.scenario:1: C:? (a step is A's without a prefix or with A:, B's with B:)")
        #expect(refusal("B:") == "s.scenario:1: B: what? a step follows it, such as B: join")
        #expect(refusal("B: wait 10s") == "s.scenario:1: wait is the scenario's, not one person's: write it without B:")
        #expect(refusal("A: stop server") == "s.scenario:1: stop is the scenario's, not one person's: write it without A:")
        #expect(refusal("B: misconfigure stale") == "s.scenario:1: misconfigure is the scenario's, not one person's: write it without B:")
    }
}
