import Foundation
import TestSupport
import OutputFiles
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `OutputFile` does with each kind of thing a path can name (the tests run as root, as the user might).
@Suite struct OutputFileTests {
    private func kind(_ path: String) -> mode_t? { TemporaryFolder.kind(path) }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func anExistingFileIsLeftAloneUnlessWritingOverItWasAsked() throws {
        let folder = try TemporaryFolder()
        let path = try folder.file("kept.cast", holding: "precious, and longer than what replaces it")
        #expect(throws: OutputFile.Failure.exists(path: path)) { try OutputFile(path: path, overwrite: false) }
        #expect(try text(path) == "precious, and longer than what replaces it")
        let file = try OutputFile(path: path, overwrite: true)
        #expect(try text(path) == "precious, and longer than what replaces it", "nothing is emptied before the first write")
        try file.write(Array("new".utf8))
        try file.write(Array(" and more".utf8))
        file.close()
        #expect(try text(path) == "new and more")
    }

    @Test func aPathThatCannotBeCreatedSaysWhy() throws {
        #expect(throws: OutputFile.Failure.cannotCreate(path: "/nonexistent-dir/call.cast", reason: "the folder /nonexistent-dir does not exist")) {
            try OutputFile(path: "/nonexistent-dir/call.cast", overwrite: false)
        }
        let folder = try TemporaryFolder()
        #expect(throws: OutputFile.Failure.exists(path: folder.path)) { try OutputFile(path: folder.path, overwrite: false) }
        #expect(throws: OutputFile.Failure.cannotCreate(path: folder.path, reason: "it is a folder")) {
            try OutputFile(path: folder.path, overwrite: true)
        }
    }

    /// A link is followed, as a shell's `>` follows it: the file it names is written, the link stays a link.
    @Test func aSymbolicLinkIsFollowedOnlyWithOverwrite() throws {
        let folder = try TemporaryFolder()
        let target = try folder.file("target.cast", holding: "precious")
        let link = try folder.file("link.cast")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: OutputFile.Failure.exists(path: link)) { try OutputFile(path: link, overwrite: false) }
        #expect(try text(target) == "precious")
        let file = try OutputFile(path: link, overwrite: true)
        try file.write(Array("new".utf8))
        file.close()
        #expect(kind(link) == S_IFLNK)
        #expect(try text(target) == "new")
    }

    /// A link to nothing is neither replaced nor followed to create the file it names, even with `overwrite`.
    @Test func aDanglingSymbolicLinkIsNeverReplacedNorFollowed() throws {
        let folder = try TemporaryFolder()
        let target = try folder.file("missing.cast"), link = try folder.file("link.cast")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: OutputFile.Failure.exists(path: link)) { try OutputFile(path: link, overwrite: false) }
        #expect(throws: OutputFile.Failure.cannotCreate(
            path: link, reason: "it is a symbolic link to a file that does not exist; give the file's own path")) {
            try OutputFile(path: link, overwrite: true)
        }
        #expect(kind(link) == S_IFLNK)
        #expect(kind(target) == nil)
    }

    /// A character device (one like /dev/null, made in the test's folder) is written into, and stays a device, even
    /// when the run that opened it ends without writing.
    @Test func aDeviceIsWrittenIntoAndNeverReplacedOrRemoved() throws {
        let folder = try TemporaryFolder()
        let device = try folder.nullDevice("null")
        try #require(kind(device) == S_IFCHR)
        #expect(throws: OutputFile.Failure.exists(path: device)) { try OutputFile(path: device, overwrite: false) }
        let written = try OutputFile(path: device, overwrite: true)
        try written.write(Array("frame".utf8))
        written.close()
        #expect(kind(device) == S_IFCHR)
        try OutputFile(path: device, overwrite: true).discard()
        #expect(kind(device) == S_IFCHR)
    }

    /// A named pipe is written into while a reader reads it; without a reader it is refused at once (not waited on),
    /// and a reader going away is a failed write, not the end of the process (SIGPIPE).
    @Test func aNamedPipeIsWrittenIntoWhileSomethingReadsIt() throws {
        let folder = try TemporaryFolder()
        let pipe = try folder.file("pipe")
        try #require(mkfifo(pipe, 0o644) == 0)
        #expect(throws: OutputFile.Failure.cannotCreate(path: pipe, reason: "nothing reads it (a named pipe without a reader)")) {
            try OutputFile(path: pipe, overwrite: true)
        }
        let reader = open(pipe, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        let file = try OutputFile(path: pipe, overwrite: true)
        try file.write(Array("frame".utf8))
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(reader, &buffer, buffer.count) == 5 && Array(buffer.prefix(5)) == Array("frame".utf8))
        close(reader)
        #expect(throws: OutputFile.Failure.cannotWrite(path: pipe, reason: "nothing reads it any more")) {
            try file.write(Array("next".utf8))
        }
        file.discard()
        #expect(kind(pipe) == S_IFIFO)
    }

    @Test func discardRemovesOnlyAFileThisRunCreated() throws {
        let folder = try TemporaryFolder()
        let created = try folder.file("new.svg")
        try OutputFile(path: created, overwrite: false).discard()
        #expect(kind(created) == nil, "a file it created and never wrote is removed")

        let existing = try folder.file("old.svg", holding: "precious")
        try OutputFile(path: existing, overwrite: true).discard()
        #expect(try text(existing) == "precious", "what was there stays, whole")

        // The path now names another file than the one created: that one is not removed.
        let moved = try folder.file("moved.svg")
        let file = try OutputFile(path: created, overwrite: false)
        try FileManager.default.moveItem(atPath: created, toPath: moved)
        _ = try folder.file("new.svg", holding: "someone else's")
        file.discard()
        #expect(try text(created) == "someone else's")
    }
}
