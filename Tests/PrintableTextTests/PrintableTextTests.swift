import Foundation
import PrintableText
import Testing

@Suite struct PrintableTextTests {
    @Test func whatWouldActOnATerminalIsWrittenAsItsEscape() {
        #expect("a\u{1B}[2J\r\n\t\u{7F}\u{85}\u{9B}".escapedForPrinting == #"a\u001b[2J\u000d\u000a\u0009\u007f\u0085\u009b"#)
        #expect("abc\u{202E}cba\u{2066}\u{200B}".escapedForPrinting == #"abc\u202ecba\u2066\u200b"#)
        #expect("one\u{2028}two\u{2029}".escapedForPrinting == #"one\u2028two\u2029"#)
        #expect("tag\u{E0001}".escapedForPrinting == #"tag\udb40\udc01"#)
    }

    @Test func printableTextIsLeftAsItIs() {
        let text = "room 42 !#$%&()+-:;<=.>?@[]^_{}|~, \\ \" café Ωμέγα 房间 😀"
        #expect(text.escapedForPrinting == text)
    }

    /// Inside a JSON string the escapes read back as the very text escaped.
    @Test func inJSONTheEscapesReadBackAsTheText() throws {
        let text = "x\u{7F}\u{85}\u{9B}\u{202E}\u{2028}\u{E0001}y"
        let json = "[\"" + text.escapedForPrinting + "\"]"
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String] == [text])
    }

    /// A quoted string is one printable line that any JSON reader takes back as the text, quotes and backslashes too.
    @Test func aJSONQuotedStringReadsBackAsTheTextOnOneLine() throws {
        let text = "say \"hi\"\\path\n\r\t\u{1B}[31mred\u{7F}\u{202E}\u{2028}\u{E0001} 房间 😀"
        let quoted = text.jsonQuoted
        #expect(quoted == #""say \"hi\"\\path\n\r\t\u001b[31mred\u007f\u202e\u2028\udb40\udc01 房间 😀""#)
        #expect(quoted.unicodeScalars.allSatisfy { !$0.isUnsafeToPrint })
        #expect(try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String] == [text])
    }
}

@Suite struct URLWithoutCredentialsTests {
    @Test(arguments: [
        ("http://alice:hunter2@host/?api_key=k", "http://host/"),
        ("https://alice@example.com:8443/token?access_token=t#frag", "https://example.com:8443/token"),
        ("http://a@b:c@host/path@x?q", "http://host/path@x"),
        ("ws://127.0.0.1:8082/hub?channel=x&api_key=k", "ws://127.0.0.1:8082/hub"),
        ("ws://[::1]:8082/hub#access_token=t", "ws://[::1]:8082/hub"),
        ("http://host:8080", "http://host:8080"),
        ("HTTP://u:p@HOST?x", "HTTP://HOST"),
        ("/token?channel={channel}&api_key=k", "/token"),
        ("x-weird+scheme://u:p@host/x?y", "x-weird+scheme://host/x"),
        ("://u:p@host/x", "://host/x"),
        ("/path://a@b?q", "/path://a@b"),
        ("none (tokens pasted by hand)", "none (tokens pasted by hand)"),
        ("http://127.0.0.1:5000/ (embedded)", "http://127.0.0.1:5000/ (embedded)"),
    ])
    func credentialsAreLeftOut(url: String, shown: String) {
        #expect(url.urlWithoutCredentials == shown)
    }
}
