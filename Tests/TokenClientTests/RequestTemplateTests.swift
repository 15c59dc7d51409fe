import JSON
import Testing
@testable import TokenClient

private func filled(_ template: String, channel: String = "test", user: RequestTemplate.Values.User = .uid(42),
                    publisher: Bool = true) throws -> RequestTemplate.Filled {
    try RequestTemplate(parsing: template).filled(with: .init(channel: channel, user: user, publisher: publisher, expire: 600))
}

private func problem(_ template: String) -> String? {
    do {
        _ = try RequestTemplate(parsing: template)
        return nil
    } catch {
        return error.description
    }
}

@Suite struct RequestTemplateTests {
    @Test func aSlashOrDotsInAValueStayInsideTheirPathSegment() throws {
        let request = try filled("GET /rtc/{channel}/{user}/", channel: "../a/b", user: .account("x/../y"))
        #expect(request.path == "/rtc/%2E%2E%2Fa%2Fb/x%2F%2E%2E%2Fy/")
        #expect(request.query == nil && request.body == nil)
    }

    @Test func queryValuesAreFormEncoded() throws {
        let request = try filled("GET /token?channel={channel}&who={user}&t=rtc", channel: "a&b=c+d e", user: .account("jo é"))
        #expect(request.path == "/token")
        #expect(request.query == "channel=a%26b%3Dc%2Bd+e&who=jo+%C3%A9&t=rtc")
    }

    @Test func bodyValuesAreJSONStringContentInQuotesAndNumbersOutside() throws {
        let request = try filled(#"POST /t {"c":"{channel}","u":{uid},"r":{role},"e":{expire},"n":"{roleName}"}"#,
                                 channel: "say \"hi\"\\\n", publisher: false)
        let body = try #require(request.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"c":"say \"hi\"\\\u000a","u":42,"r":2,"e":600,"n":"subscriber"}"#)
        #expect(JSONValue.parse(body)?.object?["c"] == .string("say \"hi\"\\\n"), "the server reads back the channel as it is")
    }

    @Test func userPlaceholdersFollowTheKindOfUser() throws {
        let template = "GET /rtc/{userType}/{user}/{role:publisher|audience}"
        #expect(try filled(template, user: .uid(7)).path == "/rtc/uid/7/publisher")
        #expect(try filled(template, user: .account("ann"), publisher: false).path == "/rtc/userAccount/ann/audience")
    }

    @Test func aUidPlaceholderForAnAccountOrTheReverseSaysWhatToUse() throws {
        #expect(throws: RequestTemplate.Problem("the request sends {uid}, a number, but this join uses a user account; use {user} or {account} in a template, or --token-request getToken")) {
            try filled("GET /t?u={uid}", user: .account("ann"))
        }
        #expect(throws: RequestTemplate.Problem("the request sends {account}, but this join uses an integer uid; use {user} or {uid} in a template, or --token-request getToken")) {
            try filled(#"POST /t {"a":"{account}"}"#, user: .uid(3))
        }
    }

    @Test(arguments: [
        ("get /t", nil),
        ("DELETE /t", "starts with GET, POST or PUT"),
        ("GET", "has no path after GET"),
        ("GET token", "must start with /"),
        ("GET https://evil.example/token?c={channel}", "names a whole URL; write only its path"),
        ("GET //evil.example/token", "names another server"),
        ("GET /t?c={chanel}", "unknown placeholder {chanel}; the placeholders are {channel} {uid}"),
        ("GET /t/{channel", "the path has a { without its }"),
        ("GET /t/channel}", "the path has a } without its {"),
        ("GET /t?c={{channel}}", "the query has a { without its }"),
        ("GET /t#top", "#fragment"),
        ("GET /t%zz", "% not followed by two hex digits"),
        ("GET /caf\u{e9}", "U+00E9, which a URL cannot hold"),
        ("GET /t\r\n", "the path has U+000D U+000A, which a URL cannot hold"),
        (#"GET /t {"c":"{channel}"}"#, "a GET request has no body"),
        (#"POST /t {"c":{channel}}"#, "{channel} outside quotes, where only a number may stand"),
        (#"POST /t {"c":"{channel}""#, "the body is not JSON"),
        (#"POST /t {"c":"{channel"#, "the body has a { without its }"),
        ("POST / {expire}6.8", "the body has {expire} joined to other text"),
        (#"POST /t {"n":1{uid}}"#, "the body has {uid} joined to other text"),
        (#"POST /t [{uid},{role}, {expire} ]"#, nil),
        (#"POST /t {"c":"{channel"}"#, "unknown placeholder {channel\"}"),
        ("GET /t/{role:a}", "must be {role:PUBLISHER|SUBSCRIBER}"),
        ("GET /t/{role:a|b c}", "the path has a { without its }"),
        ("GET /" + String(repeating: "a", count: 2044), "the template is 2049 bytes; at most 2048"),
    ] as [(String, String?)])
    func eachMistakeInATemplateIsNamed(template: String, words: String?) {
        let found = problem(template)
        if let words {
            #expect(found?.contains(words) == true, "\(found ?? "no problem")")
        } else {
            #expect(found == nil, "\(found ?? "")")
        }
    }

    @Test func literalURLTextIsSentAsWritten() throws {
        let request = try filled(#"PUT /api/v1/token;x=1?a=%41&b=~ {"k":"{ not a placeholder","c":"{channel}"}"#)
        #expect(request.method == .put)
        #expect(request.path == "/api/v1/token;x=1")
        #expect(request.query == "a=%41&b=~")
        #expect(String(decoding: request.body ?? [], as: UTF8.self) == #"{"k":"{ not a placeholder","c":"test"}"#)
    }
}

@Suite struct FieldPathTests {
    private let answer = JSONValue.parse(Array(#"{"data": {"tokens": ["a", "b"], "n": 5}}"#.utf8))!

    @Test func findsMembersAndArrayElements() throws {
        #expect(try FieldPath(parsing: "data.tokens.1").value(in: answer).get() == .string("b"))
        #expect(try FieldPath(parsing: "data.n").value(in: answer).get() == .integer(5))
    }

    @Test func aDotAloneIsTheWholeAnswer() throws {
        let whole = try FieldPath(parsing: ".")
        #expect(whole.isWhole && whole.description == ".")
        #expect(try whole.value(in: answer).get() == answer)
        #expect(try !FieldPath(parsing: "data").isWhole)
    }

    @Test(arguments: [
        ("data.token", "data has no \"token\" member"),
        ("data.tokens.2", "data.tokens is an array of 2 and has no element 2"),
        ("data.n.x", "data.n is a number, not an object with \"x\""),
        ("token", "the answer has no \"token\" member"),
    ])
    func saysWhereAPathStopsFindingAValue(path: String, words: String) throws {
        let result = try FieldPath(parsing: path).value(in: answer)
        guard case .failure(let problem) = result else {
            Issue.record("expected a failure for \(path)")
            return
        }
        #expect(problem.description == words)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("data..token", "has an empty segment"),
        (".token", "has an empty segment"),
        ("a b", "only printable ASCII without spaces"),
        ("a.b.c.d.e.f.g.h.i", "has 9 segments; at most 8"),
        (String(repeating: "a", count: 201), "is 201 bytes; at most 200"),
    ])
    func badPathsAreRefused(path: String, words: String) {
        #expect(throws: FieldPath.Problem.self) { try FieldPath(parsing: path) }
        do {
            _ = try FieldPath(parsing: path)
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }
}
