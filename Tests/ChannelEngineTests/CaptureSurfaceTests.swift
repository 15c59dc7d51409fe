@testable import ChannelEngine
import Foundation
import TestSupport
import Testing

/// What API-Examples' `LiveStreaming` and `JoinChannelAudio` call beyond the token (issue 37): the camera, image
/// sources, watermarks, the encoder's advanced options, snapshots with a config and the local audio mixer.
@MainActor
@Suite struct CaptureSurfaceTests {
    private func accepted(_ h: Harness) -> [String] {
        h.recorder.allEvents.compactMap { event in
            if case .simulatorNotice(.accepted(let method, let arguments)) = event { "\(method.rawValue) \(arguments)" } else { nil }
        }
    }

    @Test func theCameraHasTheSimulatedDevicesLensesAndNoCenterStage() async {
        let h = Harness()
        await h.settle()
        h.recorder.clear()
        let lenses = (h.engine.queryCameraFocalLengthCapability() ?? []).map { "\($0.cameraDirection) \($0.focalLengthType.name)" }
        #expect(lenses == ["1 default", "0 default", "0 ultraWide"])
        let config = AgoraCameraCapturerConfiguration()
        config.cameraDirection = .front
        config.cameraFocalLengthType = .ultraWide
        #expect(h.engine.setCameraCapturerConfiguration(config) == -2)
        config.cameraDirection = .rear
        #expect(h.engine.setCameraCapturerConfiguration(config) == 0)
        #expect(h.engine.setCameraStabilizationMode(.level2) == 0)
        #expect(!h.engine.isCameraCenterStageSupported())
        #expect(h.engine.enableCameraCenterStage(true) == -4)
        await h.settle()
        #expect(accepted(h) == ["setCameraCapturerConfiguration(_:) rear ultraWide", "setCameraStabilizationMode(_:) level2"])
    }

    @Test func imageSourcesWatermarksEncoderOptionsAndTheMixerAreCheckedAndRecorded() async {
        let h = Harness()
        await h.settle()
        h.recorder.clear()
        let image = AgoraImageTrackOptions()
        let remote = AgoraMixedAudioStream()
        remote.sourceType = .remoteChannel
        let mixer = AgoraLocalAudioMixerConfiguration()
        #expect(h.engine.enableVideoImageSource(true, options: image) == -2)
        #expect(h.engine.startLocalAudioMixer(mixer) == -2)
        mixer.audioInputStreams = [remote, AgoraMixedAudioStream()]
        #expect(h.engine.startLocalAudioMixer(mixer) == -2)
        await h.settle()
        #expect(accepted(h).isEmpty)

        image.imageUrl = "agora-logo.png"
        remote.channelId = "test"
        mixer.syncWithLocalMic = false
        let watermark = WatermarkOptions()
        watermark.positionInPortraitMode = CGRect(x: 10, y: 80, width: 60, height: 60)
        let encoder = AgoraVideoEncoderConfiguration()
        let advanced = AgoraAdvancedVideoOptions()
        advanced.encodingPreference = .prefersoftware
        advanced.compressionPreference = .quality
        encoder.advancedVideoOptions = advanced
        let results: [Int32] = [
            h.engine.enableVideoImageSource(true, options: image), h.engine.enableVideoImageSource(false, options: image),
            h.engine.addVideoWatermark(URL(string: "agora-logo.png")!, options: watermark), h.engine.clearVideoWatermarks(),
            h.engine.setVideoEncoderConfiguration(encoder), h.engine.startLocalAudioMixer(mixer), h.engine.stopLocalAudioMixer(),
        ]
        #expect(results.allSatisfy { $0 == 0 })
        await h.settle()
        #expect(accepted(h) == [
            "enableVideoImageSource(_:options:) true agora-logo.png 1 fps",
            "enableVideoImageSource(_:options:) false",
            "addVideoWatermark(_:options:) agora-logo.png at 10,80 60x60 preview true",
            "clearVideoWatermarks() ",
            "setVideoEncoderConfiguration(_:) 960x540 15 fps bitrate 0 adaptative mirror disabled prefersoftware quality",
            "startLocalAudioMixer(_:) remoteChannel test, microphone sync false",
            "stopLocalAudioMixer() ",
        ])
    }

    @Test func aSnapshotWithAConfigIsWrittenToItsPath() async throws {
        let h = Harness()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        await h.join()
        h.engine.enableVideo()
        let config = AgoraSnapshotConfig()
        #expect(config.position == .preEncoder)
        #expect(h.engine.takeSnapshotWithConfig(0, config: config) == -2)
        config.filePath = path
        config.position = .postCaptureOrigin
        #expect(h.engine.takeSnapshotWithConfig(0, config: config) == 0)
        await h.settle()
        let taken = h.recorder.allEvents.compactMap { event -> String? in
            if case .snapshotTaken(let uid, let file, let width, let height, let code) = event {
                "\(uid) \(file == path) \(width)x\(height) \(code)"
            } else { nil }
        }
        #expect(taken == ["0 true 960x540 0"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).starts(with: Data("P6\n960 540\n".utf8)))
    }

    /// video-sdk-samples-ios' `AgoraVideoCanvasView` sets these on every canvas and keys its views by connection.
    @Test func aCanvasSetUpForRemovalRemovesItAndConnectionsAreEqualOnlyToThemselves() {
        let h = Harness()
        let view = NSObject()
        for (uid, setUp) in [(UInt(0), { (c: AgoraRtcVideoCanvas) in h.engine.setupLocalVideo(c) }),
                             (9, { (c: AgoraRtcVideoCanvas) in h.engine.setupRemoteVideo(c) })] {
            let canvas = AgoraRtcVideoCanvas()
            canvas.uid = uid
            canvas.view = view
            canvas.setupMode = .add
            canvas.cropArea = CGRect(x: 0, y: 0, width: 16, height: 9)
            _ = setUp(canvas)
            #expect(h.engine.videoCanvas(forUid: uid)?.cropArea.width == 16)
            canvas.setupMode = .remove
            _ = setUp(canvas)
            #expect(h.engine.videoCanvas(forUid: uid) == nil)
        }
        let first = AgoraRtcConnection(channelId: "test", localUid: 7)
        #expect(Set([first, AgoraRtcConnection(channelId: "test", localUid: 7), first]).count == 2)
    }

    @Test func mediaOptionsForAMixedTrackKeepTheSDKsDefaults() {
        let options = AgoraRtcChannelMediaOptions()
        #expect(!options.publishMixedAudioTrack && options.enableAudioRecordingOrPlayout)
    }
}
