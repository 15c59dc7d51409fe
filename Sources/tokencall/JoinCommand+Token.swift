import AccessToken
import Arguments
import CallSession
import Foundation
import TokenClient

/// `join --token`: the pasted first token, from the command line or one line of standard input.
extension JoinCommand {
    /// The token `--token` gives, read once; nil without `--token`. Without `--channel` (or `--uid` and `--account`) a
    /// 007 token's own channel (and user: its uid, or its account) are joined.
    static func pastedToken(_ args: Invocation, into config: inout CallSession.Configuration) throws(UsageError) -> PastedToken? {
        guard let given = args[token] else { return nil }
        let text: String
        if given == "-" {
            if isatty(STDIN_FILENO) == 1 { Console.error("tokencall join: paste the token, then press Enter:") }
            guard let line = readLine(limit: PastedToken.maximumLength) else {
                throw args.error("--token -: standard input has no line of at most \(PastedToken.maximumLength) bytes; "
                                 + "give the token alone on one line")
            }
            text = line
        } else {
            text = given
        }
        let token: PastedToken
        do throws(PastedTokenError) {
            token = try PastedToken(text, unixTime: config.unixTime())
        } catch {
            let shown = PastedToken.abbreviated(text.trimmingCharacters(in: .whitespacesAndNewlines))
            throw args.error("--token \(shown.isEmpty ? "" : "\(shown) ")is not a token to join with: \(error)")
        }
        if !args.has(CallOptions.channel), let channel = token.channel, (try? AgoraID.validateChannelName(channel)) != nil {
            config.channel = channel
        }
        if !args.has(UserOptions.uid), !args.has(CallOptions.account), let user = token.uid.flatMap(RTCUser.init(tokenField:)),
           (try? AgoraID.validateAccount(user.tokenField)) != nil {
            config.user = user
        }
        return token
    }

    /// One line of standard input without its line break, read at most `limit` bytes (and a CR LF) far; nil when
    /// the line is longer, or not UTF-8.
    private static func readLine(limit: Int) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !bytes.contains(UInt8(ascii: "\n")), bytes.count <= limit + 2 {
            let count = read(STDIN_FILENO, &chunk, min(chunk.count, limit + 3 - bytes.count))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) { bytes.removeSubrange(end...) }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count <= limit else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
