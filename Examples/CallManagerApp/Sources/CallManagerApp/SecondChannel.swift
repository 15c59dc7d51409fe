// The second channel of API-Examples' JoinMultiChannel screen, as its own delegate: joined through an
// AgoraRtcConnection made empty and then set, renewed with updateChannelEx, its first remote picture saved with
// takeSnapshotEx. Its lines start with "ex".
import ChannelEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GuideHarness

class SecondChannel: NSObject, AgoraRtcEngineDelegate {
    let channelName = "second"
    let localUid: UInt = 2002
    private var snapshotTaken = false

    var connection: AgoraRtcConnection {
        let connection = AgoraRtcConnection()
        connection.channelId = channelName
        connection.localUid = localUid
        return connection
    }

    let snapshotPath = NSTemporaryDirectory() + "second-channel-\(ProcessInfo.processInfo.processIdentifier).jpg"

    private func fetchToken(completion: @escaping (String) -> Void) {
        guard let url = URL(string: "\(Guide.serverURL)/rtc/\(channelName)/subscriber/uid/\(localUid)/") else { return }
        URLSession.shared.dataTask(with: url) { data, _, _ in
            let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
            guard let token = json?["rtcToken"] as? String else { return Guide.say("ex could not fetch a token") }
            completion(token)
        }.resume()
    }

    /// Called on a background queue.
    func join(engine: AgoraRtcEngineKit) {
        fetchToken { token in
            let options = AgoraRtcChannelMediaOptions()
            options.clientRoleType = .audience
            options.publishCameraTrack = false
            options.publishMicrophoneTrack = false
            options.autoSubscribeVideo = true
            Guide.batch {
                Guide.call("ex preloadChannel") { engine.preloadChannel(byToken: token, channelId: self.channelName, uid: self.localUid) }
                Guide.call("ex joinChannelEx", detail: CallManager.thread) {
                    engine.joinChannelEx(byToken: token, connection: self.connection, delegate: self, mediaOptions: options)
                }
            }
        }
    }

    func leave(engine: AgoraRtcEngineKit) {
        let options = AgoraLeaveChannelOptions()
        options.stopMicrophoneRecording = false
        Guide.call("ex leaveChannelEx") {
            engine.leaveChannelEx(connection, options: options) { _ in Guide.say("ex leaveChannelEx block") }
        }
        try? FileManager.default.removeItem(atPath: snapshotPath)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, connectionChangedTo state: AgoraConnectionState,
                   reason: AgoraConnectionChangedReason) {
        Guide.say("ex connectionChangedTo \(state.name) \(reason.name)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinChannel channel: String, withUid uid: UInt, elapsed: Int) {
        Guide.say("ex didJoinChannel \(channel) \(uid)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, didJoinedOfUid uid: UInt, elapsed: Int) {
        Guide.say("ex didJoinedOfUid \(uid)")
        let canvas = AgoraRtcVideoCanvas()
        canvas.uid = uid
        canvas.view = PlainView()
        engine.setupRemoteVideoEx(canvas, connection: connection)
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, firstRemoteVideoFrameOfUid uid: UInt, size: CGSize, elapsed: Int) {
        guard !snapshotTaken else { return }
        snapshotTaken = true
        Guide.say("ex firstRemoteVideoFrame")
        DispatchQueue.global().async {
            Guide.call("ex takeSnapshotEx", detail: CallManager.thread) {
                Int32(engine.takeSnapshotEx(self.connection, uid: Int(uid), filePath: self.snapshotPath))
            }
        }
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, snapshotTaken uid: UInt, filePath: String, width: Int, height: Int, errCode: Int) {
        // The simulator writes the picture as a binary PPM: its header, then three bytes a pixel.
        let header = "P6\n\(width) \(height)\n255\n"
        let size = (try? FileManager.default.attributesOfItem(atPath: filePath)[.size] as? Int) ?? 0
        let file = size == header.utf8.count + width * height * 3 ? "the file holds it" : "the file is \(size) bytes"
        Guide.say("ex snapshotTaken errCode \(errCode) \(width)x\(height), \(file)")
    }

    func rtcEngine(_ engine: AgoraRtcEngineKit, tokenPrivilegeWillExpire token: String) {
        Guide.say("ex tokenPrivilegeWillExpire")
        fetchToken { token in
            let options = AgoraRtcChannelMediaOptions()
            options.token = token
            Guide.call("ex updateChannelEx", detail: CallManager.thread) { engine.updateChannelEx(with: options, connection: self.connection) }
        }
    }

    func rtcEngineRequestToken(_ engine: AgoraRtcEngineKit) {
        Guide.say("ex requestToken")
    }
}
