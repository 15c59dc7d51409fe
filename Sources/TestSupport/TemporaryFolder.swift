import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder of a test's own under the temporary directory, removed with whatever it holds when the test lets go of it.
public final class TemporaryFolder {
    public let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-\(UUID().uuidString)").path

    public init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the folder, a file holding `text` when given.
    public func file(_ name: String, holding text: String? = nil) throws -> String {
        let file = path + "/" + name
        if let text { try text.write(toFile: file, atomically: false, encoding: .utf8) }
        return file
    }

    /// A character device with /dev/null's numbers (1, 3) made in the folder (root only), so that no real device is at stake.
    public func nullDevice(_ name: String) throws -> String {
        let device = path + "/" + name
        guard mknod(device, S_IFCHR | 0o666, 1 << 8 | 3) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
        return device
    }

    /// What `path` names as `lstat` sees it (`S_IFREG`, `S_IFLNK`, `S_IFCHR`, ...), or nil when nothing is there.
    public static func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }
}
