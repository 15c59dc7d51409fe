import CCrypto
import Foundation
import Glibc
import Synchronization

/// An https:// server on 127.0.0.1 for tests: OpenSSL in blocking mode on threads of its own, one request per
/// connection (or, keeping them, one after another), each answered with `answer` (a whole HTTP response).
public final class TLSTestServer: Sendable {
    public let port: UInt16
    /// The SSL_CTX, reached under the lock only: each connection's SSL is made from it there.
    private let context: Mutex<OpaquePointer>
    private let received = Mutex<[String]>([])
    private let names = Mutex<[String]>([])
    private let connections: ThreadPerConnection
    private let keepsConnections: Bool

    /// Serves with `certificate`; `maxVersion` (an OpenSSL version constant such as TLS1_1_VERSION) caps what it speaks;
    /// `keepsConnections` reads the next request on a connection after answering one, instead of closing it.
    public init(_ certificate: TestCertificates.Pair, maxVersion: Int32? = nil, keepsConnections: Bool = false,
                answer: @escaping @Sendable (String) -> String) throws {
        guard let context = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_certificate_chain_file(context, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey_file(context, certificate.key, SSL_FILETYPE_PEM) == 1 else {
            throw POSIXError(.EINVAL)
        }
        if let maxVersion { _ = tc_tls_max_version(context, maxVersion) }
        // OpenSSL writes to the socket without MSG_NOSIGNAL (a TLS 1.3 session ticket after the handshake, an answer):
        // a client that leaves first (the doctor's handshake-only probe) must not end the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        self.context = Mutex(context)
        self.keepsConnections = keepsConnections
        guard let (listener, port) = Loopback.listen(backlog: 64) else { throw POSIXError(.EADDRNOTAVAIL) }
        self.port = port
        connections = ThreadPerConnection(listener: listener)
        connections.start { [self] fd in serve(fd, answer: answer) }
    }

    deinit { context.withLock { SSL_CTX_free($0) } }

    /// Answers each request with what the plain HTTP server on 127.0.0.1:`port` answers to it, asked with
    /// `Connection: close` so that its answer ends with its connection: an https:// front for a test's `tokencall serve`.
    public static func forwarding(to port: UInt16) -> @Sendable (String) -> String {
        { request in
            guard let fd = Loopback.connect(port: port) else { return "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n" }
            defer { close(fd) }
            var bytes = Array(request.utf8)
            if Array(request.lowercased().utf8).firstRange(of: Array("\r\nconnection: close\r\n".utf8)) == nil, let line = bytes.firstRange(of: Array("\r\n".utf8)) {
                bytes.insert(contentsOf: Array("\r\nConnection: close".utf8), at: line.lowerBound)
            }
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { break }
                offset += sent
            }
            var answer: [UInt8] = []
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &scratch, scratch.count, 0)
                guard count > 0 else { break }
                answer += scratch[..<count]
            }
            return String(decoding: answer, as: UTF8.self)
        }
    }

    public func url(host: String = "127.0.0.1") -> URL { URL(string: "https://\(host):\(port)")! }
    /// Every request that arrived whole through TLS, head and body.
    public var requests: [String] { received.withLock { $0 } }
    /// The server name (SNI) each finished handshake carried, one a connection; "" for none.
    public var serverNames: [String] { names.withLock { $0 } }
    /// Stops accepting, shuts the connections still served and waits for every thread of the server to end
    /// (`ThreadPerConnection.stop`). Again does nothing.
    public func stop() { connections.stop() }

    private func serve(_ fd: Int32, answer: (String) -> String) {
        // A kept connection waits for its next request as long as a test may take (`stop` ends it sooner): a test process
        // whose threads are busy can hold the client's second request back well past 10 s.
        var timeout = timeval(tv_sec: keepsConnections ? 600 : 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let ssl = context.withLock({ SSL_new($0) }) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { return }
        let name = SSL_get_servername(ssl, Int32(TLSEXT_NAMETYPE_host_name)).map { String(cString: $0) } ?? ""
        names.withLock { $0.append(name) }
        var bytes: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let request = Loopback.wholeRequest(bytes) {
                received.withLock { $0.append(request) }
                let reply = Array(answer(request).utf8)
                _ = reply.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
                if keepsConnections {
                    bytes = []  // a client sends its next request only once it has this answer
                    continue
                }
                SSL_shutdown(ssl)
                return
            }
            let count = SSL_read(ssl, &scratch, Int32(scratch.count))
            guard count > 0 else { return }
            bytes += scratch[..<Int(count)]
        }
    }
}
