import Foundation
import Testing
@testable import CallSession

/// `Docs/sdk-profiles.md` is made from the table of names; `RECORD_DOCS=1` writes it anew.
@Suite struct SDKProfilesPageTests {
    @Test func thePageIsTheTables() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/sdk-profiles.md")
            .standardizedFileURL
        let page = SDKProfilesPage.markdown
        if ProcessInfo.processInfo.environment["RECORD_DOCS"] != nil {
            try page.write(to: url, atomically: true, encoding: .utf8)
        }
        let written = try #require(try? String(contentsOf: url, encoding: .utf8), "no Docs/sdk-profiles.md; write it with RECORD_DOCS=1")
        #expect(written == page, "Docs/sdk-profiles.md is not the table's page: RECORD_DOCS=1 swift test --filter SDKProfilesPageTests")
    }
}
