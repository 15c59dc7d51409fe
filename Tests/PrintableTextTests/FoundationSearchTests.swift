import Foundation
import Glibc
import Testing

/// Foundation's string search on Linux (Swift 6.3.1) traps ("String index is out of bounds") when the text holds NULs
/// and a non-ASCII character and what is searched for a longer run of NULs; outside text is searched as bytes instead
/// (`utf8.contains(_:)`, `utf8.firstRange(of:)`). Which `contains` a call is cannot be read from the source — a
/// `Set`'s, a byte array's and `Character`'s look the same as Foundation's, and Foundation's is taken even for
/// `host.contains(":")` in any module that can see Foundation — so this reads what the compiler chose: the object files
/// built from `Sources/`, for a call of one of Foundation's `StringProtocol` searches.
@Suite struct FoundationSearchTests {
    /// Foundation's `StringProtocol` methods, as their mangled names start.
    static let foundationStringMethod = Array("$sSy10FoundationE".utf8)
    /// The searches among them, by how their mangled names go on.
    static let searches = [
        "8contains": "contains(_:)",
        "5range2of": "range(of:)",  // also what an optimized `contains` becomes
        "20replacingOccurrences2of": "replacingOccurrences(of:with:)",
        "33localizedCaseInsensitiveContains": "localizedCaseInsensitiveContains(_:)",
        "25localizedStandardContains": "localizedStandardContains(_:)",
        "22localizedStandardRange2of": "localizedStandardRange(of:)",
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The folder this test runs from, where SwiftPM keeps each module's objects (`<Module>.build/<File>.swift.o`).
    static func buildFolder() throws -> URL {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The searches `object`'s bytes name.
    static func searchesCalled(in object: [UInt8]) -> Set<String> {
        var found: Set<String> = []
        let prefix = foundationStringMethod
        object.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var at = 0
            while let hit = memchr(base + at, Int32(prefix[0]), bytes.count - at) {
                at = base.distance(to: hit) + 1
                guard bytes.count - at >= prefix.count - 1, memcmp(hit, prefix, prefix.count) == 0 else { continue }
                let rest = bytes[(at + prefix.count - 1)...]
                found.formUnion(searches.filter { rest.starts(with: $0.key.utf8) }.map(\.value))
            }
        }
        return found
    }

    @Test func noCodeInSourcesCallsFoundationsStringSearch() throws {
        let build = try Self.buildFolder()
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        try #require(files.count > 100, "found \(files.count) Swift files under \(Self.sources.path)")
        var missing: [String] = []
        for file in files {
            let module = file.deletingLastPathComponent().lastPathComponent
            let object = build.appendingPathComponent("\(module).build/\(file.lastPathComponent).o")
            guard let bytes = FileManager.default.contents(atPath: object.path) else {
                missing.append("\(module)/\(file.lastPathComponent)")
                continue
            }
            let called = Self.searchesCalled(in: Array(bytes))
            #expect(called.isEmpty, """
                Sources/\(module)/\(file.lastPathComponent) calls Foundation's \(called.sorted().joined(separator: ", ")) on a string: \
                search its bytes instead (utf8.contains(_:), utf8.firstRange(of:))
                """)
        }
        #expect(missing.isEmpty, "no object in \(build.path) for \(missing.prefix(5).joined(separator: ", ")): swift build --build-tests first")
    }

    /// The scan sees such a call: the mangled names are the ones this toolchain's Foundation exports.
    @Test func theScanSeesFoundationsSearch() throws {
        let object = "PrintableTextTests.build/\(URL(fileURLWithPath: #filePath).lastPathComponent).o"
        let path = try Self.buildFolder().appendingPathComponent(object).path
        let bytes = try #require(FileManager.default.contents(atPath: path), "no object at \(path)")
        #expect(Self.searchesCalled(in: Array(bytes)) == ["contains(_:)", "range(of:)"])
    }

    /// What puts Foundation's searches in this file's object; never called.
    static func foundationSearches(_ text: String, _ piece: String) -> Bool {
        text.contains(piece) || text.range(of: piece) != nil
    }
}
