import AccessToken
import Foundation
import TestSupport
import Testing

@Suite struct JoinCommandTests {
    @Test func headlessJoinsPrintsTextLinesAndEndsCleanly() throws {
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "2", "--seed", "3", "--remote-users", "1"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("] connectionStateChanged state=connected reason=joinSuccess") })
        #expect(lines.contains { $0.contains("] tokenFetched latency=") })
        #expect(lines.contains { $0.contains("] didJoinedOfUid uid=") })
        #expect(lines.last?.hasSuffix("] sessionEnded failed=false") == true)
        #expect(lines.allSatisfy { $0.hasPrefix("[") && $0.dropFirst(9).hasPrefix("s] ") }, "\(lines.first ?? "")")
        #expect(result.stderr.contains("seed 3"))
    }

    @Test func anAccountJoinsThroughTheEmbeddedServerAndShowsTheUidItWasGiven() throws {
        let result = try TokenCallProcess.run(["join", "--account", "alice", "--headless", "--duration", "2", "--seed", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let registered = try #require(lines.first { $0.contains("] didLocalUserRegistered account=alice uid=") }, "\(result.stdout)")
        let uid = try #require(registered.split(separator: "=").last.flatMap { UInt32($0) })
        #expect(uid != 0)
        #expect(lines.contains { $0.contains("] didJoinChannel channel=test uid=\(uid) elapsed=") }, "\(result.stdout)")
        #expect(lines.last?.hasSuffix("] sessionEnded failed=false") == true)
    }

    @Test func aPastedAccountTokenJoinsAsItsAccount() throws {
        let built = try TokenCallProcess.run(["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
                                              "--channel", "test", "--account", "carol", "--expire", "600"])
        let token = built.stdout.trimmingCharacters(in: .newlines)
        let result = try TokenCallProcess.run(["join", "--token", token, "--headless", "--duration", "1", "--seed", "5"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("] didLocalUserRegistered account=carol uid="), "\(result.stdout)")
        #expect(!result.stdout.contains("will be refused"))
    }

    /// `serve` hands out account tokens on each route that carries an account; a join through each gets in.
    @Test(arguments: ["getToken", "rtc-path"])
    func anAccountJoinsThroughServe(shape: String) throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1", "--token-url", url.absoluteString, "--token-request", shape,
                                               "--account", "bob smith", "--app-id", TestCredentials.appID,
                                               "--app-certificate", TestCredentials.certificate], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains(#"] didLocalUserRegistered account="bob smith" uid="#), "\(result.stdout)")
        #expect(result.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"))
    }

    /// The Web's call ends at expiry as the Web SDK's does: no request for a token, no FAILED state (issue 35).
    @Test func aWebCallsExpiryEndsAsTheWebSDKsDoes() throws {
        let join = try TokenCallProcess.run(["join", "--headless", "--sdk", "web", "--no-auto-renew", "--token-lifetime", "31",
                                             "--speed", "60", "--duration", "40", "--remote-users", "0", "--seed", "3"])
        let names = join.stdout.split(separator: "\n").map { String($0.drop { $0 != "]" }.dropFirst(2)) }
        let tokenFlow = names.filter { $0.hasPrefix("token-privilege") || $0.hasPrefix("connection-state-change") }
        #expect(tokenFlow == ["connection-state-change state=CONNECTING", "connection-state-change state=CONNECTED",
                              "token-privilege-will-expire", "token-privilege-did-expire",
                              "connection-state-change state=DISCONNECTED reason=TOKEN_EXPIRE",
                              // --duration's leave.
                              "connection-state-change state=DISCONNECTED reason=LEAVE"], "\(join.stdout)")
        #expect(!join.stdout.contains("requestToken") && !join.stdout.contains("FAILED"), "\(join.stdout)")
    }

    @Test func jsonLinesAreOneObjectEach() throws {
        let result = try TokenCallProcess.run(["join", "--json", "--duration", "1", "--seed", "3"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("not a terminal"), "--json asks for lines: no note needed")
        let objects = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.allSatisfy { $0["t"] is Double || $0["t"] is Int })
        let states = objects.filter { $0["event"] as? String == "connectionStateChanged" }
        #expect(states.contains { $0["state"] as? String == "connected" && $0["reason"] as? String == "joinSuccess" })
        #expect(objects.last?["event"] as? String == "sessionEnded")
        #expect(objects.last?["failed"] as? Bool == false)
    }

    @Test func aMisconfiguredEmbeddedServerShowsWhatTheSDKAnswersAtTheFirstRenewal() throws {
        // 32 s: the warning comes 1-2 s in, whatever part of a second the token was issued in (a 31 s token accepted
        // more than a second after its issue second is short, and renewed only halfway, 15 s in).
        let result = try TokenCallProcess.run(["join", "--misconfigure", "wrong-uid", "--token-lifetime", "32", "--headless",
                                               "--duration", "3", "--seed", "1", "--remote-users", "0"])
        #expect(result.status == 0, "the call is still up on its first token when it leaves")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let said = try #require(lines.firstIndex { $0.contains("note text=\"misconfigure wrong-uid: the embedded token server hands out a token for another uid") })
        let joined = try #require(lines.firstIndex { $0.hasSuffix("connectionStateChanged state=connected reason=joinSuccess") })
        let refused = try #require(lines.firstIndex { $0.hasSuffix("renewTokenResult code=invalidToken") }, "\(result.stdout)")
        #expect(said < joined && joined < refused, "the join's token is sound, the renewal's is not")
        #expect(lines.contains { $0.contains("the token server sent a token for someone else") && $0.contains("handed to the engine anyway") })
        #expect(lines.last?.hasSuffix("sessionEnded failed=false") == true)
    }

    @Test func sigtermLeavesTheChannelAndExitsZero() throws {
        let (process, stdout, _) = try TokenCallProcess.start(["join", "--headless", "--seed", "1"])
        var seen = TokenCallProcess.read(stdout, until: "didJoinChannel")
        process.terminate()
        process.waitUntilExit()
        seen += String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(seen.contains("didLeaveChannel"))
        #expect(seen.contains("sessionEnded failed=false"))
    }

    @Test func aCallThatEndsFailedExitsOne() throws {
        let result = try TokenCallProcess.run(["join", "--token-url", "http://127.0.0.1:1", "--duration", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a terminal; printing events"), "a note says why there is no screen")
        #expect(result.stdout.contains("tokenFetchFailed error=\"cannot reach the token server: connection refused\""))
        #expect(result.stdout.contains("sessionEnded failed=true"))
    }

    /// Read with FoundationNetworking in tokencall's own process, this answer would end it (#5285); tokencall reads
    /// http:// answers itself, so only the fetch fails, saying why.
    @Test func aTokenServerWhoseAnswerCrashesSwiftsHTTPClientFailsTheFetchNotTokencall() throws {
        let server = try HostileServer { $0.write("HTTP/1.1 200 OK\r\nX-Slow: aaa") }
        defer { server.stop() }
        let result = try TokenCallProcess.run(["join", "--token-url", server.url.absoluteString, "--duration", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("tokenFetchFailed error=\"cannot reach the token server: the connection closed before the whole answer: "
            + "inside its head"), "\(result.stdout)")
        #expect(result.stdout.contains("sessionEnded failed=true"))
    }

    @Test func aTemplateAndATokenFieldJoinThroughTokencallServe() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate, ["--quiet"])
        defer { server.terminate() }
        let result = try TokenCallProcess.run([
            "join", "--headless", "--duration", "2", "--seed", "3", "--uid", "7", "--app-id", TestCredentials.appID,
            "--app-certificate", TestCredentials.certificate, "--token-url", url.absoluteString, "--token-lifetime", "120",
            "--token-request", "GET /rtc/{channel}/{role:publisher|audience}/{userType}/{user}/?expiry={expire}", "--token-field", "rtcToken",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("] tokenFetched latency="), "\(result.stdout)")
        #expect(result.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"))
        // serve's own lifetime is 3600 s; the token lasts the 120 s that {expire} asked for.
        let fetched = try #require(result.stdout.split(separator: "\n").first { $0.contains("] tokenFetched ") })
        let expiresAt = try #require(fetched.split(separator: " ").first { $0.hasPrefix("expiresAt=") }.flatMap { Double($0.dropFirst(10)) })
        #expect((60...121).contains(expiresAt - Date().timeIntervalSince1970), "\(fetched)")
    }

    /// Agora's Python sample (`GET /v1/token?channel_name=`) answers the token alone as a web page, for any uid: join reads it.
    @Test func aServerAnsweringTheTokenAloneAsAWebPageIsJoined() throws {
        let server = try HostileServer { connection in
            let token = (try? AccessToken2.buildRTC(appID: TestCredentials.appID, appCertificate: TestCredentials.certificate, channel: "bare",
                                                    user: .uid(0), role: .publisher, tokenExpire: 900, privilegeExpire: 0)) ?? ""
            connection.write(head("200 OK", ["Content-Type: text/html; charset=utf-8", "Content-Length: \(token.utf8.count + 1)"]) + token + "\n")
        }
        defer { server.stop() }
        for field in [[], ["--token-field", "."]] {
            let result = try TokenCallProcess.run(["join", "--headless", "--duration", "2", "--seed", "3", "--channel", "bare", "--uid", "7",
                                                   "--app-id", TestCredentials.appID, "--token-url", server.url.absoluteString,
                                                   "--token-request", "GET /v1/token?channel_name={channel}"] + field, limit: .seconds(30))
            #expect(result.status == 0, "\(field): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("] tokenFetched latency="), "\(result.stdout)")
            #expect(result.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"))
        }
    }

    /// Without --duration, a headless call that only a person could mend ends by itself, failed.
    @Test(arguments: [
        (["--app-certificate", "0123456789abcdef0123456789abcdef"], "the network refused the call (invalidToken)"),
        (["--auth-bearer", "wrong"], "the token server refused the request (HTTP 401"),
    ])
    func aCallNothingWillMendEndsFailed(extra: [String], words: String) throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                         ["--require-bearer", "right", "--quiet"])
        defer { server.terminate(); server.waitUntilExit() }
        let bearer = extra.contains("--auth-bearer") ? [] : ["--auth-bearer", "right"]
        let result = try TokenCallProcess.run(["join", "--headless", "--token-url", url.absoluteString, "--app-id", TestCredentials.appID] + bearer + extra,
                                              limit: .seconds(30))
        #expect(result.stdout.contains("] stuck reason=\"\(words)"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("sessionEnded failed=true\n"))
        #expect(result.status == 1)
    }

    /// A server that refuses requests without an Origin: join says so in one sentence, blaming no --auth-bearer it was
    /// not given, and with --origin it gets its tokens.
    @Test func aServerThatWantsAnOriginIsExplainedAndJoinedWithOrigin() throws {
        let server = try OriginRequiredServer()
        defer { server.stop() }
        let asked = ["join", "--headless", "--uid", "7", "--token-url", server.url.absoluteString, "--app-id", TestCredentials.appID]
        let refused = try TokenCallProcess.run(asked, limit: .seconds(30))
        #expect(refused.status == 1)
        // The words, not how the event line quotes the server's own.
        let stuck = try #require(refused.stdout.split(separator: "\n").first { $0.contains("] stuck reason=") }, "\(refused.stdout)")
        #expect(stuck.contains("the token server refuses every request without an Origin header (HTTP 403, "))
        #expect(stuck.contains("Origin not allowed"))
        #expect(stuck.hasSuffix("as agora-token-service does when CORS_ALLOW_ORIGIN lists origins, so no native app gets a token; "
            + "have it serve requests that carry no Origin (CORS is for browsers; CORS_ALLOW_ORIGIN=* there), or send one with --origin; "
            + "nothing will retry\""), "\(stuck)")
        #expect(!refused.stdout.contains("--auth-bearer") && !refused.stdout.contains("credential"))

        let joined = try TokenCallProcess.run(asked + ["--origin", OriginRequiredServer.origin, "--duration", "2"], limit: .seconds(30))
        #expect(joined.status == 0, "\(joined.stdout)\(joined.stderr)")
        #expect(joined.stdout.contains("] connectionStateChanged state=connected reason=joinSuccess"), "\(joined.stdout)")
    }

    @Test(arguments: [
        (["join", "--origin", "https://app.example"], "--origin goes with --token-url"),
        (["join", "--token-url", "http://127.0.0.1:9", "--origin", "https://app.example/login"], "--origin must be an origin as a browser sends it"),
        (["join", "--channel", "a/b"], "--channel: invalid channel name"),
        (["join", "--uid", "-3"], "--uid must be an integer from 0 to 4294967295"),
        (["join", "--role", "host"], "--role must be broadcaster or audience"),
        (["join", "--token-url", "ftp://x"], "--token-url must be an http:// or https:// URL"),
        (["join", "--token-url", "ftp://alice:hunter2@x/t?api_key=KEY"], "--token-url must be an http:// or https:// URL with a host, not \"ftp://x/t\""),
        (["join", "--token-request", "soap"], "--token-request: \"soap\" is neither a request shape nor a template; the shapes are fetch, getToken"),
        (["join", "--token-request", #"GET /t {"c":"{channel}"}"#], "--token-request: a GET request has no body"),
        (["join", "--token-request", "GET http://elsewhere.example/t"], "--token-request: the template names a whole URL"),
        (["join", "--token-url", "http://127.0.0.1:9", "--token-field", "data..token"], "--token-field: the field path \"data..token\" has an empty segment"),
        (["join", "--token-url", "http://127.0.0.1:9", "--expires-field", "."], "--expires-field names a JSON field beside the token"),
        (["join", "--expires-field", "exp"], "--expires-field reads your server's answer; give --token-url too"),
        (["join", "--renew-method", "pray"], "--renew-method must be renew, update or rejoin"),
        (["join", "--token-url", "http://127.0.0.1:9", "--token-lifetime", "60"], "--token-lifetime reaches your server only through {expire}"),
        (["join", "--app-id", "xyz"], "the App ID must be 32 hex characters"),
        (["join", "--remote-users", "99"], "--remote-users must be an integer from 0 to 16"),
        (["join", "--auth-bearer", "two words"], "--auth-bearer needs a credential without spaces"),
        (["join", "--auth-bearer", ""], "--auth-bearer needs a credential; it is empty"),
        (["join", "--uid", "5", "--account", "alice"], "give --uid or --account, not both"),
        (["join", "--uid", "alice"], "for a string user account use --account"),
        (["join", "--account", "a/b"], "--account: "),
        (["join", "--account", ""], "--account: "),
        (["join", "--account", "alice", "--token-url", "http://127.0.0.1:9"],
         "--token-request fetch: the request sends {uid}, a number, but this join uses a user account; use {user} or {account} in a template, or --token-request getToken"),
        (["join", "--uid", "7", "--token-url", "http://127.0.0.1:9", "--token-request", #"POST /t {"name":"{account}"}"#],
         "but this join uses an integer uid; use {user} or {uid}"),
        (["join", "--misconfigure", "wrong-role"], "--misconfigure must be wrong-uid, wrong-channel, wrong-app, stale or expired, not \"wrong-role\""),
        (["join", "--token-url", "http://127.0.0.1:9", "--misconfigure", "stale"], "--misconfigure makes the embedded server's tokens wrong; drop --token-url"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], words: String) throws {
        let result = try TokenCallProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("tokencall join: "))
        #expect(result.stderr.contains(words), "\(result.stderr)")
    }
}

/// `join --speed`: the call on a clock N times as fast, its times in the call's time.
@Suite struct JoinSpeedTests {
    /// The token is made while the first fetch is under way (its real milliseconds of call time: an exchange counts at
    /// 1x); it warns 86370 s of call time after that, and the renewal, at 1x too, arrives before the token's end.
    @Test func aDayLongTokenWarns86370SecondsOfCallTimeAfterItWasMadeInAboutTwentyFourRealSeconds() throws {
        let result = try TokenCallProcess.run(["join", "--json", "--speed", "3600", "--token-lifetime", "86400", "--duration", "90000",
                                               "--seed", "3", "--remote-users", "1"], limit: .seconds(120))
        let objects = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func time(of event: String) throws -> Double {
            let object = try #require(objects.first { $0["event"] as? String == event }, "no \(event) in \(result.stdout.suffix(1000))")
            return try #require((object["t"] as? NSNumber)?.doubleValue)
        }
        let (asked, fetched, warned) = (try time(of: "tokenFetchStarted"), try time(of: "tokenFetched"), try time(of: "tokenPrivilegeWillExpire"))
        #expect(warned - asked >= 86_369 && warned - fetched <= 86_371, "asked at \(asked), fetched at \(fetched), warned at \(warned) s")
        #expect(!objects.contains { $0["event"] as? String == "requestToken" }, "\(result.stdout.suffix(1000))")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try time(of: "tokenRenewed") > warned)
        #expect(objects.last?["event"] as? String == "sessionEnded")
        #expect(try time(of: "sessionEnded") >= 90_000)
    }

    /// The issue's `--speed 3600` ("a day in 24 s"): with the default 40 s tokens the call used to fail within its first
    /// 20 minutes, each exchange counted 3600 times. Exchanges count at 1×, so the day's 8640 renewals all arrive in
    /// time; the day takes 24 s plus the real time of its exchanges.
    @Test func aDayOf40SecondTokensAt3600xRenewsEveryTokenAndNeverExpires() throws {
        let result = try TokenCallProcess.run(["join", "--json", "--speed", "3600", "--duration", "86400", "--seed", "3",
                                               "--remote-users", "0"], limit: .seconds(300))
        let events = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["event"] as? String
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!events.contains("requestToken") && !events.contains("tokenFetchFailed"), "\(result.stdout.suffix(2000))")
        #expect(events.filter { $0 == "tokenRenewed" }.count >= 8630, "a renewal every 10 s of a day")
        #expect(events.last == "sessionEnded")
    }

    /// `tokencall serve` makes its tokens on the real clock; at 60x each lives its two minutes of the call's time from when
    /// it arrives, so every token warns 90 s of call time after it was taken. (Without the rule, the call's wall would be
    /// a minute and more ahead of the server's by the first renewal, and its tokens would warn as soon as taken.)
    @Test func tokensFromTheUsersServerLiveTheirLifetimeOfCallTimeFromWhenTheyArrive() throws {
        let (server, _, url, _) = try TokenCallProcess.serve(appID: TestCredentials.appID, certificate: TestCredentials.certificate,
                                                             ["--quiet", "--token-lifetime", "120"])
        defer { server.terminate(); server.waitUntilExit() }
        let result = try TokenCallProcess.run(["join", "--json", "--speed", "60", "--duration", "400", "--seed", "3", "--remote-users", "0",
                                               "--token-url", url.absoluteString, "--app-id", TestCredentials.appID,
                                               "--app-certificate", TestCredentials.certificate], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func times(_ matching: ([String: Any]) -> Bool) -> [Double] {
            objects.filter(matching).compactMap { ($0["t"] as? NSNumber)?.doubleValue }
        }
        let accepted = times { $0["notice"] as? String == "tokenAccepted" }
        let warned = times { $0["event"] as? String == "tokenPrivilegeWillExpire" }
        #expect(times { $0["event"] as? String == "tokenFetchFailed" }.isEmpty, "\(result.stdout.suffix(2000))")
        #expect(times { $0["event"] as? String == "tokenRenewed" }.count >= 2, "\(result.stdout.suffix(2000))")
        #expect(accepted.count >= 3 && warned.count >= 3, "\(result.stdout.suffix(2000))")
        // Events are delivered as soon as the main actor is free: 10 ms late is 0.6 s of call time at 60x.
        for (taken, warning) in zip(accepted, warned) {
            #expect((85...95).contains(warning - taken), "accepted at \(taken), warned at \(warning) s")
        }
    }

    @Test(arguments: [["--speed", "0"], ["--speed", "3601"], ["--speed", "fast"]])
    func aSpeedOutsideTheRangeIsAUsageError(arguments: [String]) throws {
        let result = try TokenCallProcess.run(["join", "--headless", "--duration", "1"] + arguments)
        #expect(result.status == 64, "\(result.stdout)")
        #expect(result.stderr.contains("--speed"), "\(result.stderr)")
    }
}

/// A request shape the server does not speak: `join` names the shape that gets a token there, in `doctor`'s words.
@Suite struct JoinWrongShapeTests {
    /// agora-token-service's paths alone: `GET /ping` and `POST /getToken` (any token will do: the hint reads answers,
    /// it does not check them); `/fetch_rtc_token` is a 404.
    static func getTokenOnly() throws -> HostileServer {
        let token = try TokenCallProcess.run(["token", "build", "--app-id", TestCredentials.appID, "--app-certificate", TestCredentials.certificate,
                                              "--channel", "test", "--uid", "0", "--expire", "600"]).stdout.trimmingCharacters(in: .newlines)
        return try HostileServer { connection in
            let line = connection.request.prefix { $0 != "\r" }
            let body = line.hasPrefix("GET /ping ") ? #"{"message":"pong"}"# : line.hasPrefix("POST /getToken ") ? #"{"token":"\#(token)"}"# : ""
            let status = body.isEmpty ? "404 Not Found" : "200 OK"
            let sent = body.isEmpty ? #"{"error":"no such endpoint"}"# : body
            connection.write(head(status, ["Content-Type: application/json", "Content-Length: \(sent.utf8.count)", "Connection: close"]) + sent)
        }
    }

    static let hint = "GET /ping answers, and --token-request getToken or agora-token-service gets a token there: use that"

    @Test func joinWithTheWrongShapeGetsDoctorsShapeHint() throws {
        let server = try Self.getTokenOnly()
        defer { server.stop() }
        let join = try TokenCallProcess.run(["join", "--token-url", server.url.absoluteString, "--headless", "--duration", "1"])
        #expect(join.stdout.contains(#"tokenFetchFailed error="the token server answered HTTP 404: no such endpoint; \#(Self.hint)""#), "\(join.stdout)")
        let doctor = try TokenCallProcess.run(["doctor", server.url.absoluteString, "--request-timeout", "30"])
        #expect(doctor.stdout.contains(" → \(Self.hint)\n"), "\(doctor.stdout)")
    }
}
