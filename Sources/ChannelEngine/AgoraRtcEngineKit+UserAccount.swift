extension AgoraRtcEngineKit {
    /// Gives a user account a uid ahead of joining: `didLocalUserRegisteredWithUserId` reports it. Returns 0, or -2 for an
    /// account that is empty or longer than 255 bytes, or an App ID other than the engine's.
    @discardableResult
    public func registerLocalUserAccount(_ userAccount: String, appId: String) -> Int32 {
        guard Self.isValidAccount(userAccount), appId == self.appId else {
            return -Int32(AgoraErrorCode.invalidArgument.rawValue)
        }
        return call {
            emit(.didLocalUserRegistered(account: userAccount, uid: uid(forAccount: userAccount)), on: nil)
            return 0
        }
    }

    /// Joins with a user account: the token must name the account, and the engine gives the user a uid (the
    /// registered one, if any). Returns 0, or -2, -17, -102.
    @discardableResult
    public func joinChannel(byToken token: String?, channelId: String, userAccount: String,
                            mediaOptions: AgoraRtcChannelMediaOptions = AgoraRtcChannelMediaOptions(),
                            joinSuccess: JoinSuccess? = nil) -> Int32 {
        guard Self.isValidAccount(userAccount) else { return -Int32(AgoraErrorCode.invalidArgument.rawValue) }
        return call {
            joinMain(token: token, channelId: channelId, uid: uid(forAccount: userAccount), account: userAccount,
                     mediaOptions: mediaOptions, joinSuccess: joinSuccess)
        }
    }

    private func uid(forAccount account: String) -> UInt {
        if let uid = accounts[account] { return uid }
        let uid = assignUid()
        accounts[account] = uid
        return uid
    }

    static func isValidAccount(_ account: String) -> Bool {
        !account.isEmpty && account.utf8.count <= 255
    }
}
