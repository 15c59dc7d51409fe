@testable import ChannelEngine
import Foundation
import TestSupport
import Testing

/// The calls real screens make besides tokens: devices switched, settings checked and recorded, media statistics,
/// the network's type, warnings, canvases on a connection and snapshots.
@MainActor
@Suite struct MediaSurfaceTests {
    private func local(_ h: Harness) -> [String] {
        h.recorder.allEvents.compactMap { event in
            switch event {
            case .localAudioStateChanged(let state, let reason): "audio \(state.name) \(reason.name)"
            case .localVideoStateChanged(let state, let reason, let source): "video \(state.name) \(reason.name) \(source.name)"
            default: nil
            }
        }
    }

    @Test func theMicrophoneAndCameraStatesFollowTheSwitchesAndTheRole() async {
        let h = Harness()
        h.engine.enableVideo()
        h.engine.startPreview()
        await h.settle()
        #expect(local(h) == ["video capturing ok camera"])
        await h.join()
        #expect(local(h).dropFirst() == ["audio recording ok", "audio encoding ok", "video encoding ok camera"])
        h.recorder.clear()
        h.engine.enableLocalAudio(false)
        h.engine.enableLocalVideo(false)
        h.engine.enableLocalVideo(true)
        h.engine.disableAudio()
        h.engine.enableLocalAudio(true)
        h.engine.enableAudio()
        h.engine.setClientRole(.audience)
        await h.settle()
        #expect(local(h) == [
            "audio stopped ok", "video stopped ok camera", "video capturing ok camera", "video encoding ok camera",
            "audio recording ok", "audio encoding ok", "audio stopped ok", "video capturing ok camera",
        ])
        h.recorder.clear()
        h.engine.leaveChannel()
        h.engine.stopPreview()
        await h.settle()
        #expect(local(h) == ["video stopped ok camera"])
    }

    @Test func mediaStatisticsComeEveryTwoSecondsWithWhatTheSimulationModels() async throws {
        let h = Harness(remoteUsers: 1)
        await h.join()
        await h.advance(3.5)
        let peer = try #require(h.engine.remoteUids.first)
        let frame = try #require(h.recorder.events.compactMap { event -> VideoSize? in
            if case .firstRemoteVideoFrame(peer, let size, _) = event { size } else { nil }
        }.first)
        let local = h.recorder.allEvents.compactMap { if case .localAudioStats(let stats) = $0 { stats } else { nil } }
        let video = h.recorder.allEvents.compactMap { if case .remoteVideoStats(let stats) = $0 { stats } else { nil } }
        let audio = h.recorder.allEvents.compactMap { if case .remoteAudioStats(let stats) = $0 { stats } else { nil } }
        #expect(h.recorder.times(of: "localAudioStats") == h.recorder.times(of: "reportRtcStats"))
        #expect(local.count == 2 && local.allSatisfy { $0.numChannels == 1 && $0.sentSampleRate == 48_000 && $0.sentBitrate == 0 })
        #expect(video.count == 2 && video.allSatisfy {
            $0.uid == peer && $0.width == UInt(frame.width) && $0.height == UInt(frame.height) && $0.rendererOutputFrameRate == 15
                && $0.receivedBitrate == 0
        })
        let heard = h.recorder.events.compactMap { event -> AgoraNetworkQuality? in
            if case .networkQuality(peer, _, let rx) = event { rx } else { nil }
        }
        #expect(audio.map(\.uid) == [peer, peer])
        #expect(audio.map(\.quality) == heard.map { UInt($0.rawValue) })
        // A frozen video is reported at 0 frames a second.
        h.engine.simulateNetworkInterruption(true)
        await h.advance(2)
        let frozen = h.recorder.allEvents.compactMap { if case .remoteVideoStats(let stats) = $0 { stats } else { nil } }.last
        #expect(frozen?.rendererOutputFrameRate == 0)
        #expect(frozen?.width == UInt(frame.width))
    }

    @Test func theNetworkTypeAndTheWarningsOfALostLink() async {
        let h = Harness()
        await h.settle()
        #expect(h.recorder.allEvents == [.networkTypeChanged(.lan)])
        await h.join()
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(true)
        await h.advance(4)
        let story = h.recorder.allEvents.filter { !["reportRtcStats", "networkQuality", "localAudioStats"].contains($0.name) }
        #expect(story == [
            .simulatorNotice(.network(down: true)), .networkTypeChanged(.disconnected),
            .connectionStateChanged(.reconnecting, reason: .reasonInterrupted), .connectionInterrupted,
            .didOccurWarning(.openChannelTimeout),
        ])
        h.recorder.clear()
        h.engine.simulateNetworkInterruption(false)
        await h.settle()
        #expect(h.recorder.allEvents.prefix(2) == [.simulatorNotice(.network(down: false)), .networkTypeChanged(.lan)])
    }

    @Test func aJoinThatCannotReachTheNetworkIsWarnedOfOnce() async {
        let h = Harness()
        h.engine.simulateNetworkInterruption(true)
        h.engine.joinChannel(byToken: h.token(), channelId: "test", uid: 42)
        await h.advance(5)
        #expect(h.recorder.allEvents.filter { $0.name == "didOccurWarning" } == [.didOccurWarning(.lookupChannelTimeout)])
        h.engine.simulateNetworkInterruption(false)
        await h.advance(1)
        #expect(h.engine.connectionState == .connected)
    }

    @Test func callsWithoutMeaningHereAreCheckedAndRecorded() async {
        let h = Harness()
        await h.settle()
        h.recorder.clear()
        let bad = AgoraVideoEncoderConfiguration(size: CGSize(width: 640, height: 360), frameRate: 0,
                                                 bitrate: AgoraVideoBitrateStandard, orientationMode: .fixedPortrait, mirrorMode: .auto)
        let good = AgoraVideoEncoderConfiguration(size: CGSize(width: 640, height: 360), frameRate: AgoraVideoFrameRate.fps15.rawValue,
                                                  bitrate: AgoraVideoBitrateStandard, orientationMode: .fixedPortrait, mirrorMode: .auto)
        let negative = AgoraVideoEncoderConfiguration()
        negative.bitrate = -2
        let refused: [Int32] = [
            h.engine.setLogFile(""), h.engine.setParameters("{not json"), h.engine.setParameters("[1]"),
            h.engine.setVideoEncoderConfiguration(bad), h.engine.setVideoEncoderConfiguration(negative),
            h.engine.preloadChannel(byToken: nil, channelId: "bad\u{1}name", uid: 1), h.engine.preloadChannel(byToken: nil, channelId: "test", uid: 1 << 33),
            h.engine.preloadChannel(byToken: nil, channelId: "test", userAccount: ""),
            h.engine.startMediaRenderingTracingEx(AgoraRtcConnection()),
        ]
        #expect(refused == [-2, -2, -2, -2, -2, -102, -2, -2, -2])
        await h.settle()
        #expect(h.recorder.allEvents.isEmpty)
        let accepted: [Int32] = [
            h.engine.setLogFile("/tmp/agorasdk.log"), h.engine.setParameters(#"{"che.video.lowBitRateStreamParameter":{"width":320}}"#),
            h.engine.setVideoEncoderConfiguration(good), h.engine.setDefaultAudioRouteToSpeakerphone(true),
            h.engine.enableInstantMediaRendering(), h.engine.startMediaRenderingTracing(),
            h.engine.startMediaRenderingTracingEx(AgoraRtcConnection(channelId: "test", localUid: 42)),
            h.engine.preloadChannel(byToken: h.token(), channelId: "test", uid: 42),
            h.engine.preloadChannel(byToken: nil, channelId: "test", userAccount: "alice"), h.engine.enableDualStreamMode(true),
        ]
        #expect(accepted.allSatisfy { $0 == 0 })
        await h.settle()
        #expect(h.recorder.allEvents == [
            .simulatorNotice(.accepted(.setLogFile, arguments: "/tmp/agorasdk.log")),
            .simulatorNotice(.accepted(.setParameters, arguments: #"{"che.video.lowBitRateStreamParameter":{"width":320}}"#)),
            .simulatorNotice(.accepted(.setVideoEncoderConfiguration, arguments: "640x360 15 fps bitrate 0 fixedPortrait mirror auto")),
            .simulatorNotice(.accepted(.setDefaultAudioRouteToSpeakerphone, arguments: "true")),
            .simulatorNotice(.accepted(.enableInstantMediaRendering, arguments: "")),
            .simulatorNotice(.accepted(.startMediaRenderingTracing, arguments: "")),
            .simulatorNotice(.accepted(.startMediaRenderingTracingEx, arguments: "test/42")),
            .simulatorNotice(.accepted(.preloadChannel, arguments: "test 42")),
            .simulatorNotice(.accepted(.preloadChannelWithAccount, arguments: "test alice")),
            .simulatorNotice(.accepted(.enableDualStreamMode, arguments: "true")),
        ])
    }

    @Test func theChannelProfileIsSetBeforeJoiningAndDecidesWhoIsSeen() async {
        func seen(_ profile: AgoraChannelProfile?) async -> Int {
            let h = Harness(remoteUsers: 4)
            if let profile { #expect(h.engine.setChannelProfile(profile) == 0) }
            await h.join()
            #expect(h.engine.setChannelProfile(.liveBroadcasting) == -8)
            await h.advance(10)
            return h.engine.remoteUids.count
        }
        // In live broadcasting every fourth peer is an audience member, whom nobody sees.
        #expect(await seen(nil) == 3)
        #expect(await seen(.communication) == 4)
    }

    @Test func remoteCanvasesAreKeptPerConnection() async {
        let h = Harness()
        await h.join()
        let view = NSObject(), other = NSObject()
        let canvas = AgoraRtcVideoCanvas()
        canvas.uid = 9
        canvas.view = view
        canvas.backgroundColor = 0xFF00_00FF
        #expect(h.engine.setupRemoteVideoEx(canvas, connection: AgoraRtcConnection(channelId: "test", localUid: 42)) == 0)
        let second = AgoraRtcVideoCanvas()
        second.uid = 9
        second.view = other
        let ex = AgoraRtcConnection(channelId: "second", localUid: 7)
        #expect(h.engine.setupRemoteVideoEx(second, connection: ex) == 0)
        #expect(h.engine.setupRemoteVideoEx(second, connection: AgoraRtcConnection()) == -2)
        #expect(h.engine.videoCanvas(forUid: 9)?.view === view)
        #expect(h.engine.videoCanvas(forUid: 9, connection: ex)?.view === other)
        second.view = nil
        h.engine.setupRemoteVideoEx(second, connection: ex)
        #expect(h.engine.videoCanvas(forUid: 9, connection: ex) == nil)
    }

    private func snapshots(_ h: Harness) -> [(uid: UInt, width: Int, height: Int, code: Int)] {
        h.recorder.allEvents.compactMap { event in
            if case .snapshotTaken(let uid, _, let width, let height, let code) = event { (uid, width, height, code) } else { nil }
        }
    }

    @Test func aSnapshotWritesTheUsersPictureAndSaysSo() async throws {
        let h = Harness(remoteUsers: 1)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("remote.jpg").path
        #expect(h.engine.takeSnapshot(0, filePath: path) == -3)
        await h.join()
        await h.advance(2)
        let peer = try #require(h.engine.remoteUids.first)
        #expect(h.engine.takeSnapshot(Int(peer), filePath: "") == -2)
        #expect(h.engine.takeSnapshot(-1, filePath: path) == -2)
        #expect(h.engine.takeSnapshot(Int(peer), filePath: path) == 0)
        await h.settle()
        let taken = try #require(snapshots(h).last)
        #expect(taken.uid == peer && taken.code == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = "P6\n\(taken.width) \(taken.height)\n255\n"
        #expect(data.starts(with: Data(header.utf8)))
        #expect(data.count == header.utf8.count + taken.width * taken.height * 3)
        let size = h.recorder.events.compactMap { event -> VideoSize? in
            if case .firstRemoteVideoFrame(peer, let size, _) = event { size } else { nil }
        }.first
        #expect(size == VideoSize(width: taken.width, height: taken.height))
        // The local user's picture has the encoder's size, once there is a picture.
        #expect(h.engine.takeSnapshot(0, filePath: path) == 0)
        await h.advance(1)
        #expect(snapshots(h).last! == (uid: 0, width: 0, height: 0, code: -2))
        h.engine.enableVideo()
        h.engine.setVideoEncoderConfiguration(AgoraVideoEncoderConfiguration(width: 64, height: 36, frameRate: 15, bitrate: 0,
                                                                             orientationMode: .adaptative, mirrorMode: .auto))
        h.engine.takeSnapshot(0, filePath: path)
        // A path that cannot be written is the SDK's -1.
        h.engine.takeSnapshot(0, filePath: directory.appendingPathComponent("missing/local.jpg").path)
        await h.settle()
        #expect(snapshots(h).suffix(2).map { "\($0.uid) \($0.width)x\($0.height) \($0.code)" } == ["0 64x36 0", "0 0x0 -1"])
    }

    @Test func aSnapshotOnAnotherConnectionIsToldToItsDelegate() async throws {
        let h = Harness(remoteUsers: 1)
        let ex = Recorder()
        let connection = AgoraRtcConnection(channelId: "second", localUid: 7)
        h.engine.joinChannelEx(byToken: h.token(channel: "second", uid: 7), connection: connection, delegate: ex)
        await h.advance(2)
        let peer = try #require(ex.events.compactMap { if case .didJoinedOfUid(let uid, _) = $0 { uid } else { nil } }.first)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ex-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(h.engine.takeSnapshotEx(connection, uid: Int(peer), filePath: path) == 0)
        #expect(h.engine.takeSnapshotEx(AgoraRtcConnection(channelId: "third", localUid: 7), uid: Int(peer), filePath: path) == -3)
        await h.settle()
        #expect(ex.allEvents.last?.name == "snapshotTaken")
        #expect(h.recorder.count("snapshotTaken") == 0)
    }
}
