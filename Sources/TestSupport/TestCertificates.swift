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
    /// For 127.0.0.1 and localhost, signed by the CA, valid for 90 days and a half (see `leaf`).
    public let good: Pair
    /// For elsewhere.example only, signed by the CA.
    public let otherName: Pair
    /// For 127.0.0.1 and localhost, signed by the CA, its validity over.
    public let expired: Pair
    /// For 127.0.0.1 and localhost, signed by the CA, ending in 5 days and a half (within the doctor's 7) and in 20 and a
    /// half (within its 30).
    public let endsIn5Days: Pair
    public let endsIn20Days: Pair
    /// For 127.0.0.1 and localhost, signed by itself.
    public let selfSigned: Pair

    /// One set for the whole test process, made at first use.
    public static let shared = Result { try TestCertificates.make() }

    /// Makes them all; throws when `openssl` is missing or fails (Scripts/deps.sh installs it).
    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencall-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { "\(directory)/\(name)" }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "400",
                                             "-subj", "/CN=TokenCall Test CA"])
        // `openssl ca` rather than `x509 -req`, for its exact dates; it keeps its issued certificates in a database.
        try "".write(toFile: path("index.txt"), atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: path("serial"), atomically: true, encoding: .utf8)
        try """
            [ca]
            default_ca = test
            [test]
            database = \(path("index.txt"))
            serial = \(path("serial"))
            new_certs_dir = \(directory)
            default_md = sha256
            policy = any
            [any]
            commonName = supplied

            """.write(toFile: path("ca.cnf"), atomically: true, encoding: .utf8)
        let now = Int(Date().timeIntervalSince1970)
        // Valid from `from` days ago until `days` days and a half from now: half a day clear of a whole number, so the
        // doctor's count of whole days left (rounded down) is `days` for twelve hours, however long the tests take. One
        // ending exactly 90 days after it was made counted 90 within that second and 89 after it.
        func leaf(_ name: String, names: String, days: Int, from: Int = 0) throws -> Pair {
            try "subjectAltName=\(names)\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            try openssl(["req"] + key + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
            try openssl(["ca", "-batch", "-notext", "-config", path("ca.cnf"), "-cert", path("ca.pem"), "-keyfile", path("ca.key"),
                         "-startdate", stamp(now - from * 86_400), "-enddate", stamp(now + days * 86_400 + 43_200),
                         "-in", path("\(name).csr"), "-extfile", path("\(name).ext"), "-out", path("\(name).pem")])
            return Pair(certificate: path("\(name).pem"), key: path("\(name).key"))
        }
        let loopback = "IP:127.0.0.1,DNS:localhost"
        try openssl(["req", "-x509"] + key + ["-keyout", path("self.key"), "-out", path("self.pem"), "-days", "2",
                                             "-subj", "/CN=self-signed", "-addext", "subjectAltName=\(loopback)"])
        return TestCertificates(directory: directory, caFile: path("ca.pem"),
                                good: try leaf("good", names: loopback, days: 90),
                                otherName: try leaf("other", names: "DNS:elsewhere.example", days: 2),
                                // From three days ago to a day and a half ago.
                                expired: try leaf("expired", names: loopback, days: -2, from: 3),
                                endsIn5Days: try leaf("fivedays", names: loopback, days: 5),
                                endsIn20Days: try leaf("twentydays", names: loopback, days: 20),
                                selfSigned: Pair(certificate: path("self.pem"), key: path("self.key")))
    }

    /// A self-signed certificate for `names` (`DNS:a,IP:b`, as `subjectAltName` takes them), made in `directory`.
    public static func selfSigned(names: String, in directory: String) throws -> Pair {
        let pair = Pair(certificate: "\(directory)/many.pem", key: "\(directory)/many.key")
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", pair.key,
                     "-out", pair.certificate, "-days", "2", "-subj", "/CN=many", "-addext", "subjectAltName=\(names)"])
        return pair
    }

    /// A unix time as `openssl ca` takes it: YYYYMMDDHHMMSSZ, in UTC.
    private static func stamp(_ unixTime: Int) -> String {
        var time = time_t(unixTime)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d%02d%02d%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
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
