// Agora's iOS guide, "Sample code": the view controller, UIKit removed. Everything else follows the guide,
// its slip included: tokens are fetched for uid 1234 but the channel is joined as uid 123456.
// The Guide.say and Guide.call lines are added so the test sees each call and callback; the guide's own prints stay.
import ChannelEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GuideHarness

public enum TokenError: Error {
    case noData
    case invalidData
}

// UIViewController is main-actor isolated, so this plain class is too.
@MainActor
class ViewController {
    let view = PlainView()
    var localView: PlainView!
    var remoteView: PlainView!

    var agoraKit: AgoraRtcEngineKit!

    func viewDidLoad() {
        initView()
        initializeAgoraEngine()
        setClientRole()
        setupLocalVideo()
        fetchToken(channelName: "test", userId: 1234, role: 1) { result in
            switch result {
            case .success(let token):
                print("token is: \(token)")
                self.joinChannel(token: token)
            case .failure(let err):
                print("Could not fetch token: \(err)")
            }
        }
    }

    func viewDidDisappear(_ animated: Bool) {
        leaveChannel()
        destroy()
    }

    func initView() {
        remoteView = PlainView()
        view.addSubview(remoteView)
        localView = PlainView()
        view.addSubview(localView)
    }

    func initializeAgoraEngine() {
        let config = AgoraRtcEngineConfig()
        config.appId = Guide.appId
        config.channelProfile = .liveBroadcasting
        agoraKit = AgoraRtcEngineKit.sharedEngine(with: config, delegate: self)
        if agoraKit != nil {
            print("Initialization successful")
        } else {
            print("Initialization failed")
        }
    }

    func setClientRole() {
        agoraKit.setClientRole(.broadcaster)
    }

    func setupLocalVideo() {
        agoraKit.enableVideo()
        agoraKit.startPreview()
        let videoCanvas = AgoraRtcVideoCanvas()
        videoCanvas.uid = 0
        videoCanvas.renderMode = .hidden
        videoCanvas.view = localView
        agoraKit.setupLocalVideo(videoCanvas)
    }

    func joinChannel(token: String) {
        let option = AgoraRtcChannelMediaOptions()
        Guide.call("joinChannel") { agoraKit.joinChannel(byToken: token, channelId: "test", uid: 123456, mediaOptions: option) }
    }

    func leaveChannel() {
        agoraKit.stopPreview()
        Guide.call("leaveChannel") { agoraKit.leaveChannel(nil) }
    }

    func destroy() {
        AgoraRtcEngineKit.destroy()
        Guide.say("destroy")
    }

    func fetchToken(channelName: String, userId: UInt, role: UInt,
                    callback: @escaping (Result<String, Error>) -> Void) {
        let url = URL(string: "\(Guide.serverURL)/fetch_rtc_token")
        let parameters = ["uid": userId, "channelName": channelName, "role": role] as [String: Any]

        print(parameters.self)

        var request = URLRequest(url: url!, timeoutInterval: 10)
        request.httpMethod = "POST"
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: parameters, options: .prettyPrinted)
        } catch let error {
            print(error.localizedDescription)
        }

        // The completion runs on URLSession's queue, not the main thread, as on iOS.
        URLSession.shared.dataTask(with: request) { data, _, err in
            guard let data = data else {
                if let err = err {
                    callback(.failure(err))
                } else {
                    callback(.failure(TokenError.noData))
                }
                return
            }
            let responseJSON = try? JSONSerialization.jsonObject(with: data, options: [])
            if let responseDict = responseJSON as? [String: Any], let token = responseDict["token"] as? String {
                callback(.success(token))
            } else {
                callback(.failure(TokenError.invalidData))
            }
        }.resume()
    }
}

extension ViewController: AgoraRtcEngineDelegate {
    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        Guide.say("didJoinedOfUid \(uid)")
        let videoCanvas = AgoraRtcVideoCanvas()
        videoCanvas.uid = uid
        videoCanvas.renderMode = .hidden
        videoCanvas.view = remoteView
        agoraKit.setupRemoteVideo(videoCanvas)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        Guide.say("tokenPrivilegeWillExpire")
        self.fetchToken(channelName: "test", userId: 1234, role: 1) { result in
            switch result {
            case .success(let token):
                print("token is: \(token)")
                Guide.call("renewToken", detail: Thread.isMainThread ? " on the main thread" : " on a background thread") {
                    self.agoraKit.renewToken(token)
                }
                print("Renewed the token")
            case .failure(let err):
                print("Could not fetch token: \(err)")
            }
        }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionStateChanged state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason) {
        Guide.say("connectionStateChanged \(state.name) \(reason.name)")
        print("Connection state changed to")
        print(state.rawValue)
    }

    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {
        Guide.say("requestToken")
        fetchToken(channelName: "test", userId: 1234, role: 1) { result in
            switch result {
            case .success(let token):
                print("token is: \(token)")
                self.joinChannel(token: token)
            case .failure(let err):
                print("Could not fetch token: \(err)")
            }
        }
    }
}

// Not in the guide: the header's callbacks the guide does not implement, printed so the test sees them.
extension ViewController {
    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason) {
        Guide.say("connectionChangedTo \(state.name) \(reason.name)", after: state == .connecting ? "joinChannel" : nil)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        Guide.say("didJoinChannel \(channel) \(uid)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, renewTokenResult token: String, code: AgoraRenewTokenErrorCode) {
        Guide.say("renewTokenResult \(code.name)", after: "renewToken")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didOccurError errorCode: AgoraErrorCode) {
        Guide.say("didOccurError \(errorCode.rawValue) \(errorCode.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didOfflineOfUid uid: UInt, reason: AgoraUserOfflineReason) {
        Guide.say("didOfflineOfUid \(uid)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didLeaveChannelWith stats: AgoraChannelStats) {
        Guide.say("didLeaveChannelWith", after: "leaveChannel")
    }
}
