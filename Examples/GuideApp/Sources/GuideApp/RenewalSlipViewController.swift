import ChannelEngine

/// The guide's view controller with only its join fixed: the first token is fetched for uid 123456, the uid it
/// joins as, while every renewal still asks for the guide's uid 1234. The call goes well until its first renewal.
final class RenewalSlipViewController: ViewController {
    private var joinTokenFetched = false

    override func fetchToken(channelName: String, userId: UInt, role: UInt,
                             callback: @escaping (Result<String, Error>) -> Void) {
        let uid: UInt = joinTokenFetched ? userId : 123456
        joinTokenFetched = true
        super.fetchToken(channelName: channelName, userId: uid, role: role, callback: callback)
    }
}
