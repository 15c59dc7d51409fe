import Foundation
import Testing

/// Options are read by their typed keys (`args[ScreenOptions.fps]`), never by a string key that compiles when misspelt.
@Suite struct OptionReadsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test func noOptionIsReadByAStringKey() throws {
        let read = try Regex(#"(?:^|\w\.|[^.\w])(?:has|string|integer|choice|isFromEnvironment|described)\("[a-z-]+""#)
        var found: [String] = []
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            guard text.split(separator: "\n").contains("import Arguments") else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(read) {
                found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "read by a string key; declare an OptionKey and read args[key]:\n\(found.joined(separator: "\n"))")
    }
}
