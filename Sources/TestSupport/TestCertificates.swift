import Foundation

/// Certificates for TLS tests, made at run time by the `openssl` command in a temporary directory: a test CA and
/// leaves it signs (for 127.0.0.1 and localhost, for another name, expired, ending in 5 or 20 days), and a self-signed one.
public struct TestCertificates: Sendable {
    /// A certificate and its key, as PEM file paths.
    public struct Pair: Sendable {
        public let certificate: String
        public let key: String
    }

    public let directory: String
    /// The test CA's certificate, the file `--ca-file` takes.
    public let caFile: String
    /// For 127.0.0.1 and localhost, signed by the CA, valid for 90 days.
    public let good: Pair
    /// For elsewhere.example only, signed by the CA.
    public let otherName: Pair
    /// For 127.0.0.1 and localhost, signed by the CA, its validity over.
    public let expired: Pair
    /// For 127.0.0.1 and localhost, signed by the CA, ending in 5 days (within the doctor's 7) and in 20 (within its 30).
    public let endsIn5Days: Pair
    public let endsIn20Days: Pair
    /// For 127.0.0.1 and localhost, signed by itself.
    public let selfSigned: Pair

    /// Makes them all; throws when `openssl` is missing or fails (Scripts/deps.sh installs it).
    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { "\(directory)/\(name)" }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "400",
                                             "-subj", "/CN=TokenCall Test CA"])
        func leaf(_ name: String, names: String, days: String) throws -> Pair {
            try "subjectAltName=\(names)\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            try openssl(["req"] + key + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
            try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                         "-set_serial", "\(name.utf8.count)", "-days", days, "-extfile", path("\(name).ext"), "-out", path("\(name).pem")])
            return Pair(certificate: path("\(name).pem"), key: path("\(name).key"))
        }
        let loopback = "IP:127.0.0.1,DNS:localhost"
        try openssl(["req", "-x509"] + key + ["-keyout", path("self.key"), "-out", path("self.pem"), "-days", "2",
                                             "-subj", "/CN=self-signed", "-addext", "subjectAltName=\(loopback)"])
        return TestCertificates(directory: directory, caFile: path("ca.pem"),
                                good: try leaf("good", names: loopback, days: "90"),
                                otherName: try leaf("other", names: "DNS:elsewhere.example", days: "2"),
                                // A negative validity: it ended a day before it began, which is now.
                                expired: try leaf("expired", names: loopback, days: "-1"),
                                endsIn5Days: try leaf("fivedays", names: loopback, days: "5"),
                                endsIn20Days: try leaf("twentydays", names: loopback, days: "20"),
                                selfSigned: Pair(certificate: path("self.pem"), key: path("self.key")))
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw POSIXError(.ENOENT, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")) failed"])
        }
    }
}
