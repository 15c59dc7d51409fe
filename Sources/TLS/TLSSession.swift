import CCrypto
import Glibc
import PrintableText
import Synchronization

/// Where https:// certificates are trusted from: the system's store (which `SSL_CERT_FILE` and `SSL_CERT_DIR` can
/// point elsewhere), or the certificates of one PEM file (`--ca-file`) instead.
public enum TLSTrust: Sendable, Equatable {
    case system
    case file(String)
}

/// The other end of a session, as its failures name it: a client's session talks to a server, a server's to a client.
/// The one place the words that differ by role are.
public enum TLSPeer: Sendable, Equatable {
    case server
    case client

    /// "the server", "the client".
    public var name: String { self == .server ? "the server" : "the client" }

    /// What the peer sends after the handshake: the answer (a server's) or the request (a client's).
    var sends: String { self == .server ? "the answer" : "the request" }

    /// What is sent to the peer after the handshake.
    var receives: String { self == .server ? "the request" : "the answer" }

    /// Bytes from the peer that are not TLS, and the likely reason, after `why`: OpenSSL's words.
    func notTLS(_ why: String) -> String {
        switch self {
        case .server: "the server's answer is not TLS (\(why)); is it an http:// server?"
        case .client: "what the client sent is not TLS (\(why)); did it ask for http:// instead of https://?"
        }
    }

    /// The peer closed its side before `step` finished.
    public func closed(during step: String) -> TLSFailure { .handshakeRefused("\(name) closed the connection during \(step)") }
}

/// Why a TLS connection was not made, in words.
public enum TLSFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The chain ends at an issuer the trust does not hold.
    case untrustedIssuer(issuer: String)
    /// The certificate signs itself and is not in the trust.
    case selfSigned(subject: String)
    /// The certificate is for other names than the one asked for.
    case nameMismatch(asked: String, names: String)
    /// The certificate's validity ended on `date`.
    case expired(subject: String, date: String)
    /// Another refusal of the certificate, in OpenSSL's words.
    case certificate(String)
    /// The peer ended the handshake: an alert, or a closed connection.
    case handshakeRefused(String)
    /// The peer and tokencall share no TLS version (tokencall asks for TLS 1.2 or later).
    case version(String)
    /// What the peer sent is not TLS: OpenSSL's words, and who sent it.
    case notTLS(String, from: TLSPeer)
    /// The local setup failed: the CA file cannot be read, or OpenSSL could not start a session.
    case setup(String)

    public var description: String {
        switch self {
        case .untrustedIssuer(let issuer):
            "TLS: the certificate's issuer \(issuer) is not trusted; give its CA certificate with --ca-file FILE"
        case .selfSigned(let subject):
            "TLS: the certificate (\(subject)) is self-signed and not trusted; give it with --ca-file FILE if you mean to trust it"
        case .nameMismatch(let asked, let names):
            "TLS: the certificate is not for \(asked): it names \(names.isEmpty ? "nothing" : names)"
        case .expired(let subject, let date):
            "TLS: the certificate (\(subject)) expired on \(date)"
        case .certificate(let why): "TLS: the certificate is refused: \(why)"
        case .handshakeRefused(let why): "TLS: handshake refused: \(why)"
        case .version(let why): "TLS: no TLS version in common (tokencall needs TLS 1.2 or later): \(why)"
        case .notTLS(let why, let peer): "TLS: \(peer.notTLS(why))"
        case .setup(let why): "TLS: \(why)"
        }
    }
}

/// What a server's certificate says, escaped for printing.
public struct TLSCertificate: Sendable, Equatable {
    public let subject: String
    public let issuer: String
    /// Its DNS and IP names, comma-separated (its common name when it has none).
    public let names: String
    /// The end of its validity, `YYYY-MM-DD HH:MM:SS UTC`.
    public let notAfter: String
    /// Seconds from now until `notAfter` (negative once past); nil when OpenSSL cannot tell.
    public let secondsLeft: Int64?
}

/// An OpenSSL context: for a client the trust, for a server its certificate and key; the TLS ≥ 1.2 floor either way.
/// Made once and shared by every session.
public final class TLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once set up, and nothing changes it after `init`.
    let context: OpaquePointer
    let isServer: Bool

    /// A client's context, trusting `trust`.
    public init(trust: TLSTrust) throws(TLSFailure) {
        isServer = false
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .setup("OpenSSL cannot make a TLS context") }
        self.context = context
        guard tc_tls_min_version_1_2(context) == 1 else { throw .setup("OpenSSL cannot require TLS 1.2") }
        switch trust {
        case .system:
            SSL_CTX_set_default_verify_paths(context)
        case .file(let path):
            ERR_clear_error()
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                ERR_clear_error()
                throw .setup("cannot read CA certificates from \(path.escapedForPrinting): no PEM certificate there, or the file cannot be read")
            }
        }
    }

    /// A server's context: the certificate chain (PEM, the server's own first) and its private key (PEM), both read
    /// now; each problem with the files in words.
    public init(certificateFile: String, keyFile: String) throws(TLSFailure) {
        isServer = true
        for (path, what, option) in [(certificateFile, "certificate", "--tls-cert"), (keyFile, "private key", "--tls-key")] {
            let shown = path.escapedForPrinting
            guard access(path, F_OK) == 0 else { throw .setup("the \(what) file \(shown) does not exist; give \(option) a PEM file") }
            guard access(path, R_OK) == 0, let file = fopen(path, "r") else {
                throw .setup("the \(what) file \(shown) cannot be read (\(String(cString: strerror(errno)))); check its permissions")
            }
            fclose(file)
        }
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .setup("OpenSSL cannot make a TLS context") }
        self.context = context
        guard tc_tls_min_version_1_2(context) == 1 else { throw .setup("OpenSSL cannot require TLS 1.2") }
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            ERR_clear_error()
            throw .setup("the certificate file \(certificateFile.escapedForPrinting) holds no PEM certificate; give --tls-cert the server's certificate (then its chain) in PEM")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            let mismatch = tc_err_reason(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH
            ERR_clear_error()
            if mismatch { throw Self.mismatch(certificateFile, keyFile) }
            throw .setup("the private key file \(keyFile.escapedForPrinting) holds no PEM private key (or it is encrypted); give --tls-key the certificate's key in PEM, unencrypted")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            ERR_clear_error()
            throw Self.mismatch(certificateFile, keyFile)
        }
    }

    /// A server's: the DNS and IP names its certificate is for (its common name when it has none), as written there.
    public var certificateNames: [String] {
        guard isServer, let cert = SSL_CTX_get0_certificate(context) else { return [] }
        var buffer = [CChar](repeating: 0, count: 64 * 1024)  // once, at start: room for every name a certificate holds
        tc_x509_names(cert, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: ",").map { String($0.drop { $0 == " " }) }
    }

    private static func mismatch(_ certificateFile: String, _ keyFile: String) -> TLSFailure {
        .setup("the private key in \(keyFile.escapedForPrinting) does not match the certificate in \(certificateFile.escapedForPrinting); give the key the certificate was made for")
    }

    deinit { SSL_CTX_free(context) }

    /// One context per trust, made on first use.
    private static let made = Mutex<[TLSTrust: Result<TLSContext, TLSFailure>]>([:])

    public static func shared(_ trust: TLSTrust) throws(TLSFailure) -> TLSContext {
        try made.withLock { made in
            if let known = made[trust] { return known }
            let result = Result { () throws(TLSFailure) in try TLSContext(trust: trust) }
            made[trust] = result
            return result
        }.get()
    }
}

extension TLSTrust: Hashable {}

/// A TLS session (a client's or a server's) over two memory BIOs, without I/O: the caller feeds it the ciphertext the
/// socket received and sends what it has to send, so the handshake runs under the same deadline and loop as any read.
public final class TLSSession {
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private let refusal = UnsafeMutablePointer<tc_tls_refusal>.allocate(capacity: 1)
    private let host: String
    private var peerEnded = false
    /// Who is at the other end; what the failures call it.
    public let peer: TLSPeer

    /// A client's session for `host` (a name: SNI and name check; an IP address: address check).
    public convenience init(context: TLSContext, host: String) throws(TLSFailure) {
        try self.init(context, host: host, peer: .server)
        SSL_set_connect_state(ssl)
        tc_tls_verify(ssl, refusal)
        if Self.isAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            SSL_set1_host(ssl, host)
            tc_tls_server_name(ssl, host)
        }
    }

    /// A server's session for one client.
    public convenience init(serving context: TLSContext) throws(TLSFailure) {
        try self.init(context, host: "", peer: .client)
        SSL_set_accept_state(ssl)
    }

    /// A session of `context` over two empty memory BIOs, with `peer` at the other end but in neither role yet.
    private init(_ context: TLSContext, host: String, peer: TLSPeer) throws(TLSFailure) {
        self.peer = peer
        refusal.initialize(to: tc_tls_refusal(error: 0, cert: nil))
        guard let ssl = SSL_new(context.context), let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            refusal.deallocate()
            throw .setup("OpenSSL cannot start a TLS session")
        }
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.host = host
        BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, incoming, outgoing)
    }

    deinit {
        SSL_free(ssl)
        if let cert = refusal.pointee.cert { X509_free(cert) }
        refusal.deallocate()
    }

    private static func isAddress(_ host: String) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &scratch) == 1 || inet_pton(AF_INET6, host, &scratch) == 1
    }

    /// Takes ciphertext the socket received.
    public func received(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { received($0) }
    }

    /// Takes ciphertext the socket received, from memory the caller keeps.
    public func received(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(incoming, start, Int32(clamping: bytes.count))
    }

    /// The socket's peer closed its side: reads past what arrived end instead of waiting.
    public func receivedEnd() {
        peerEnded = true
        BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, nil)
    }

    /// The ciphertext waiting to be sent, taken.
    public func takeOutgoing() -> [UInt8] {
        var bytes: [UInt8] = []
        takeOutgoing(appendingTo: &bytes)
        return bytes
    }

    /// The ciphertext waiting to be sent, taken straight into the end of `bytes`.
    public func takeOutgoing(appendingTo bytes: inout [UInt8]) {
        let count = Int(tc_bio_pending(outgoing))
        guard count > 0 else { return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        let read = bytes.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress! + start, Int32(count)) }
        bytes.removeLast(count - max(0, Int(read)))
    }

    /// Runs the handshake as far as what arrived allows: true once it is done.
    public func handshake() throws(TLSFailure) -> Bool {
        tc_err_clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return true }
        try failIfBroken(result, during: "the handshake")
        return false
    }

    /// Encrypts `plaintext` into the outgoing ciphertext (after the handshake).
    public func write(_ plaintext: [UInt8]) throws(TLSFailure) {
        var offset = 0
        while offset < plaintext.count {
            tc_err_clear()
            let wrote = plaintext[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
            guard wrote > 0 else {
                try failIfBroken(wrote, during: "sending \(peer.receives)")
                throw .handshakeRefused("OpenSSL would not send \(peer.receives)")
            }
            offset += Int(wrote)
        }
    }

    /// Queues a close_notify: nothing more is sent.
    public func close() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Appends the plaintext that the ciphertext so far holds to `plaintext`; true once the peer has ended the
    /// stream (a close_notify, or a closed connection).
    public func read(into plaintext: inout [UInt8]) throws(TLSFailure) -> Bool {
        while true {
            let arrived = Int(tc_bio_pending(incoming))
            let decrypted = Int(SSL_pending(ssl))
            // Nothing arrived, decrypted or half-read: SSL_read could only want more.
            if arrived == 0, decrypted == 0, SSL_has_pending(ssl) == 0, !peerEnded { return false }
            // A record's plaintext is shorter than its ciphertext, so what arrived bounds what reads out of it; a
            // record already half in OpenSSL's buffer can hold up to the largest one.
            let room = SSL_has_pending(ssl) != 0 ? Self.largestRecord : max(arrived + decrypted, 1)
            let start = plaintext.count
            plaintext.append(contentsOf: repeatElement(0, count: room))
            tc_err_clear()
            let count = plaintext.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress! + start, Int32(room)) }
            plaintext.removeLast(room - max(0, Int(count)))
            if count > 0 { continue }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ { return false }
            if error == SSL_ERROR_ZERO_RETURN { return true }
            // A peer that closes the connection without close_notify ends the stream there; the HTTP framing says
            // whether the request or answer is whole.
            if peerEnded, error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL { return true }
            try failIfBroken(count, during: "reading \(peer.sends)")
            return false
        }
    }

    /// The most plaintext one TLS record holds.
    private static let largestRecord = 16 * 1024

    /// Throws what went wrong when `result` is a failure other than wanting more ciphertext.
    private func failIfBroken(_ result: Int32, during step: String) throws(TLSFailure) {
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ, !peerEnded { return }
        if error == SSL_ERROR_WANT_WRITE { return }
        if let refused = refusal.pointee.cert { throw certificateFailure(refused, error: refusal.pointee.error) }
        if error == SSL_ERROR_ZERO_RETURN { throw peer.closed(during: step) }  // its close_notify
        let code = ERR_peek_error()
        ERR_clear_error()
        if error == SSL_ERROR_SSL, code != 0, tc_err_is_ssl(code) != 0 {
            let reason = tc_err_reason(code)
            let named = ERR_reason_error_string(code).map { String(cString: $0) }
            let words = named ?? "error \(reason)"
            switch reason {
            case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION,
                 SSL_R_VERSION_TOO_LOW:
                throw .version(words)
            case SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST:
                throw .notTLS(words, from: peer)
            case SSL_R_UNEXPECTED_MESSAGE, SSL_R_UNEXPECTED_RECORD:
                throw .handshakeRefused("\(peer.name) sent a TLS message out of order (\(words))")
            case SSL_R_UNEXPECTED_EOF_WHILE_READING:
                throw peer.closed(during: step)
            default:
                if reason >= SSL_AD_REASON_OFFSET {
                    let alert = named.map { "the alert \"\($0)\"" } ?? "alert \(reason - SSL_AD_REASON_OFFSET), which OpenSSL has no name for"
                    throw .handshakeRefused("\(peer.name) sent \(alert)")
                }
                throw .handshakeRefused(words)
            }
        }
        // Another library's reason: a provider's, when a record of the peer's does not decrypt ("cipher operation failed").
        if error == SSL_ERROR_SSL, code != 0, let words = ERR_reason_error_string(code) { throw .handshakeRefused(String(cString: words)) }
        if peerEnded { throw peer.closed(during: step) }
        throw .handshakeRefused("OpenSSL stopped during \(step) (error \(error))")
    }

    /// After the handshake: the TLS version agreed, as OpenSSL names it (`TLSv1.3`).
    public var version: String { String(cString: SSL_get_version(ssl)) }

    /// After the handshake: what the server's certificate says, or nil when it sent none.
    public var peerCertificate: TLSCertificate? {
        guard let cert = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        var days: Int32 = 0, seconds: Int32 = 0
        let left = ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(cert)) == 1 ? Int64(days) * 86_400 + Int64(seconds) : nil
        return TLSCertificate(subject: Self.text { tc_x509_subject(cert, $0, Int32($1)) }, issuer: Self.text { tc_x509_issuer(cert, $0, Int32($1)) },
                              names: Self.text { tc_x509_names(cert, $0, $1) }, notAfter: Self.text { tc_x509_not_after(cert, $0, $1) },
                              secondsLeft: left)
    }

    /// What a shim function writes into a buffer, escaped for printing.
    private static func text(_ fill: (UnsafeMutablePointer<CChar>, Int) -> Void) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        fill(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).escapedForPrinting
    }

    private func certificateFailure(_ cert: OpaquePointer, error: Int32) -> TLSFailure {
        let text = Self.text
        let subject = text { tc_x509_subject(cert, $0, Int32($1)) }
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired(subject: subject, date: text { tc_x509_not_after(cert, $0, $1) })
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return .selfSigned(subject: subject)
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .untrustedIssuer(issuer: text { tc_x509_issuer(cert, $0, Int32($1)) })
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .nameMismatch(asked: host.escapedForPrinting, names: text { tc_x509_names(cert, $0, $1) })
        default:
            return .certificate(X509_verify_cert_error_string(Int(error)).map { String(cString: $0) } ?? "error \(error)")
        }
    }
}
