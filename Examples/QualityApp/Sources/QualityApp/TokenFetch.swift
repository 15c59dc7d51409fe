import ChannelEngine
import GuideHarness
// URLSession is in FoundationNetworking on Linux, which neither Foundation nor ChannelEngine brings.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension QualityManager {
    /// A token from `tokencall serve`, fetched as the samples fetch theirs.
    public func fetchToken(channel: String, uid: UInt) async -> String? {
        guard let url = URL(string: "\(Guide.serverURL)/rtc/\(channel)/publisher/uid/\(uid)/"),
              let (data, _) = try? await URLSession.shared.data(from: url) else { return nil }
        struct Reply: Decodable { let rtcToken: String }
        return (try? JSONDecoder().decode(Reply.self, from: data))?.rtcToken
    }
}
