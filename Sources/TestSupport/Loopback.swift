import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// TCP connections to a server on this machine, for the tests' raw clients.
public enum Loopback {
    /// A socket connected to 127.0.0.1:`port` (from `source`, another loopback address such as 127.0.0.2, when a test
    /// needs a second client machine), whose reads wait at most `readTimeout` seconds; nil when it cannot connect.
    /// `receiveBuffer` shrinks its receive buffer (a slow reader).
    public static func connect(port: UInt16, from source: String? = nil, receiveBuffer: Int32? = nil, readTimeout: Int = 10) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        if let source, bind(fd, to: source, port: 0) != 0 {
            close(fd)
            return nil
        }
        var address = Self.address(inet_addr("127.0.0.1"), port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            return nil
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Whether something accepts connections on 127.0.0.1:`port` within `limit` (a server a test started as a process).
    public static func waitForListener(on port: UInt16, within limit: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let fd = connect(port: port) {
                close(fd)
                return true
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// A port of 127.0.0.1 free a moment ago, for a server a test tells another of before it starts (another may take it
    /// first, rarely); nil when none can be had.
    public static func freePort() -> UInt16? {
        guard let (fd, port) = listen(backlog: 1) else { return nil }
        close(fd)
        return port
    }

    /// A socket listening on a free port of 127.0.0.1, and the port; nil when none can be had.
    static func listen(backlog: Int32) -> (fd: Int32, port: UInt16)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard bind(fd, to: "127.0.0.1", port: 0) == 0, Glibc.listen(fd, backlog) == 0 else {
            close(fd)
            return nil
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// The request's head and body once `bytes` hold all of them (as its Content-Length says), else nil.
    static func wholeRequest(_ bytes: [UInt8]) -> String? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let length = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return bytes.count - end.upperBound >= length ? String(decoding: bytes, as: UTF8.self) : nil
    }

    private static func bind(_ fd: Int32, to host: String, port: UInt16) -> Int32 {
        var local = address(inet_addr(host), port: port)
        return withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func address(_ host: in_addr_t, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = host
        return address
    }
}
