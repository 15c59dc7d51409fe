#if canImport(Glibc)
import Glibc
#endif

/// A socket error: what was being done, and the system's words for why it failed.
public struct SocketError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    /// What went wrong, in the system's words.
    public let reason: String

    public init(_ operation: String, code: Int32 = errno) {
        self.init(operation, reason: String(cString: strerror(code)))
    }

    public init(_ operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    public var description: String { "\(operation): \(reason)" }

    /// A connect its caller gave up on before it ended.
    public static let abandoned = SocketError("connect", reason: "given up by the caller")
}

/// A file descriptor for a TCP socket, with the few operations servers and clients need, each bounded in time: the
/// network's one seam.
public struct Socket: Sendable {
    public let fd: Int32

    public init(fd: Int32) {
        self.fd = fd
    }

    /// Listens on `host:port` (port 0 picks a free one); returns the socket and the numeric address and port it got.
    /// The backlog holds a stampede's connections until they are accepted (a thousand clients fetching tokens at
    /// once overflowed 512, and each connection dropped waited a second for its SYN to be sent again); the kernel caps
    /// it at `net.core.somaxconn`.
    public static func listen(host: String, port: UInt16, backlog: Int32 = 4096) throws(SocketError) -> (Socket, host: String, port: UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError("cannot listen on host \"\(host)\"",
                              reason: status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let error = SocketError("cannot listen on \(host):\(port)")
            _ = Glibc.close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SocketError("listen")
            _ = Glibc.close(fd)
            throw error
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let family = address.ss_family
        let boundPort: UInt16 = withUnsafePointer(to: &address) { pointer in
            if family == sa_family_t(AF_INET6) {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        }
        return (Socket(fd: fd), numericHost(address), boundPort)
    }

    /// An address to connect to, as a lookup found it: its `sockaddr` kept as bytes.
    public struct Address: Sendable {
        fileprivate let family, type: Int32
        fileprivate let bytes: InlineArray<128, UInt8>
        fileprivate let length: socklen_t
    }

    /// The addresses `host:port` names, in the order to try them. A name's lookup waits on the network: never call
    /// it on an event loop's thread.
    public static func addresses(host: String, port: UInt16) throws(SocketError) -> [Address] {
        try lookUp(host: host, port: port, flags: AI_NUMERICSERV)
    }

    /// The address when `host` is written as one (`127.0.0.1`, `::1`), which needs no lookup; nil for a name.
    public static func literalAddress(host: String, port: UInt16) -> Address? {
        try? lookUp(host: host, port: port, flags: AI_NUMERICSERV | AI_NUMERICHOST).first
    }

    private static func lookUp(host: String, port: UInt16, flags: Int32) throws(SocketError) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, list != nil else {
            throw SocketError("cannot find host \"\(host)\"",
                              reason: status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var found: [Address] = []
        var next = list
        while let entry = next {
            next = entry.pointee.ai_next
            var bytes = InlineArray<128, UInt8>(repeating: 0)
            let length = min(entry.pointee.ai_addrlen, socklen_t(bytes.count))
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(length))) }
            found.append(Address(family: entry.pointee.ai_family, type: entry.pointee.ai_socktype, bytes: bytes, length: length))
        }
        return found
    }

    /// Begins a connect to `address` without waiting: the socket is non-blocking, and writable once the connect has
    /// ended, when `connectFailure` says how.
    public static func startConnecting(to address: Address) throws(SocketError) -> Socket {
        let fd = socket(address.family, address.type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        let candidate = Socket(fd: fd)
        candidate.makeNonBlocking()
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { out in withUnsafeBytes(of: address.bytes) { out.copyMemory(from: $0) } }
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        guard started == 0 || errno == EINPROGRESS else {
            let error = SocketError("connect")
            candidate.close()
            throw error
        }
        return candidate
    }

    /// Once a socket begun by `startConnecting` is writable: nil when it connected (TCP_NODELAY set), else why not.
    public func connectFailure() -> SocketError? {
        let error = connectError()
        guard error == 0 else { return SocketError("connect", code: error) }
        noDelay()
        return nil
    }

    /// How a non-blocking connect ended: 0 when connected, the error otherwise.
    private func connectError() -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    private func noDelay() {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    public enum Accepted {
        /// A connection, and the numeric address of the client (`203.0.113.7`, `2001:db8::1`).
        case client(Socket, address: String)
        /// None was waiting, or it went away before it was accepted.
        case none
        /// The process or the system has no file descriptor (or memory) left for one.
        case outOfDescriptors
    }

    /// Accepts one connection.
    public func accept() -> Accepted {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
        }
        guard client >= 0 else {
            return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) ? .outOfDescriptors : .none
        }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .client(Socket(fd: client), address: Self.numericHost(address))
    }

    /// The address part of a socket address as text, such as `127.0.0.1` or `::1`.
    public static func numericHost(_ address: sockaddr_storage) -> String {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.ss_family)
        let written = withUnsafePointer(to: &address) { pointer -> Bool in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                    withUnsafePointer(to: inet6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) != nil }
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafePointer(to: inet.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) != nil }
            }
        }
        return written ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    /// From now on, receives and sends return at once instead of waiting.
    public func makeNonBlocking() {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// The most one receive reads.
    public static let receiveSize = 16 * 1024

    public enum Received {
        /// Bytes were appended.
        case received
        /// Nothing to read yet (a non-blocking socket), or a signal came.
        case nothingYet
        /// The peer closed the connection, or it failed.
        case closed
    }

    public enum Sent {
        /// This many bytes (at least one) were sent.
        case sent(Int)
        /// The send buffer is full; poll for POLLOUT.
        case full
        /// The peer is gone.
        case failed
    }

    /// Sends what the socket takes at once of `bytes[offset...]` (a non-blocking socket).
    public func sendSome(_ bytes: [UInt8], from offset: Int) -> Sent {
        while true {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if count > 0 { return .sent(count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .full }
            return .failed
        }
    }

    /// Appends what is there to read (at most `scratch.count` bytes), reading through `scratch`, a buffer the caller
    /// keeps for reuse.
    public func receive(appendingTo buffer: inout [UInt8], scratch: inout [UInt8]) -> Received {
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: scratch[..<count])
            return .received
        }
        if count == 0 { return .closed }
        return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? .nothingYet : .closed
    }

    /// Sends every byte, waiting while the peer reads; false when the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    public func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }
    public func close() { _ = Glibc.close(fd) }
}
