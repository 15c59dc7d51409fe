import Foundation
import Timers

/// Snapshots of a user's video (`takeSnapshot`, `takeSnapshotEx`), answered by `snapshotTaken` as in the SDK: the
/// picture a tile would draw, written to the path given. *[ours]* The file is a binary PPM (P6), not the SDK's JPEG,
/// whatever its name says: the picture is the simulator's own, so the format is too. A local snapshot has the size of
/// the encoder configuration (960×540 by default), a remote one its user's video size.
extension AgoraRtcEngineKit {
    /// A snapshot of the main connection's user `uid` (0: the local user). Returns 0, or -2 for an empty path or a uid
    /// that is not one, -3 when not in a channel; `snapshotTaken` then says how it went: 0 with the size, -1 when the
    /// file could not be written, -2 after a second when the user has no video.
    @discardableResult
    public func takeSnapshot(_ uid: Int, filePath: String) -> Int {
        snapshot(of: uid, to: filePath) { main }
    }

    /// `takeSnapshot(_:filePath:)` on a connection: the main one, or a multi-channel one.
    @discardableResult
    public func takeSnapshotEx(_ connection: AgoraRtcConnection, uid: Int, filePath: String) -> Int {
        let key = connection.key
        return snapshot(of: uid, to: filePath) { main?.connection == key ? main : exChannel(key) }
    }

    /// `takeSnapshot(_:filePath:)` to `config.filePath` (-2 when it has none). Every pipeline position gives the same
    /// picture here: there are no effects or watermarks between capture and encoder *[ours]*.
    @discardableResult
    public func takeSnapshotWithConfig(_ uid: Int, config: AgoraSnapshotConfig) -> Int {
        snapshot(of: uid, to: config.filePath ?? "") { main }
    }

    /// How long the SDK looks for a user's video before reporting it has none.
    static let snapshotPatience: Duration = .seconds(1)

    /// Finds the picture under the lock, then draws and writes it outside, so a large picture holds up no other call.
    private func snapshot(of uid: Int, to path: String, on connection: () -> Channel?) -> Int {
        guard !path.isEmpty, (0...Int(UInt32.max)).contains(uid) else { return Int(Self.invalidArgument) }
        let reported = UInt(uid)
        enum Found { case notInChannel, noVideo, picture(Channel, VideoPicture, VideoSize, Duration) }
        let found: Found = call {
            guard let channel = connection(), channel.isInChannel else { return .notInChannel }
            let target = uid == 0 ? channel.connection.localUid : reported
            guard let (picture, size) = snapshotPicture(of: target, on: channel) else {
                channel.videoTimers.append(timers.schedule(after: Self.snapshotPatience) { [weak self, id = channel.id] in
                    guard let self else { return }
                    self.fire(on: id) { channel in
                        self.emit(.snapshotTaken(uid: reported, filePath: path, width: 0, height: 0, errCode: -2), on: channel)
                    }
                })
                return .noVideo
            }
            return .picture(channel, picture, size, timers.now)
        }
        switch found {
        case .notInChannel: return -AgoraErrorCode.notReady.rawValue
        case .noVideo: return 0
        case .picture(let channel, let picture, let size, let time):
            let frame = picture.frame(at: time, width: size.width, height: size.height)
            let written = FileManager.default.createFile(atPath: path, contents: Self.ppm(frame))
            call {
                emit(.snapshotTaken(uid: reported, filePath: path, width: written ? size.width : 0,
                                    height: written ? size.height : 0, errCode: written ? 0 : -1), on: channel)
            }
            return 0
        }
    }

    /// What a tile would show of `uid` on `channel` and at what size; nil while the user shows no video.
    private func snapshotPicture(of uid: UInt, on channel: Channel) -> (VideoPicture, VideoSize)? {
        if uid == channel.connection.localUid {
            guard let source = videoSource(forUid: uid, in: channel) ?? nil else { return nil }
            return (.synthetic(source), encoderSize)
        }
        guard channel.remoteVideo[uid] == .decoding || channel.remoteVideo[uid] == .frozen else { return nil }
        if usesHub(channel), let received = hub?.frames[uid]?.frame {
            let frame = VideoFrame(received)
            return (.received(frame, frozen: false), VideoSize(width: frame.width, height: frame.height))
        }
        guard let source = videoSource(forUid: uid, in: channel) ?? nil,
              let size = worlds[channel.connection.channelId]?.peer(uid)?.videoSize else { return nil }
        return (.synthetic(source), size)
    }

    /// A binary PPM: `P6`, the size, the largest value, then red, green and blue bytes row by row.
    static func ppm(_ frame: VideoFrame) -> Data {
        var bytes = Array("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
        let start = bytes.count
        bytes += [UInt8](repeating: 0, count: frame.pixels.count * 3)
        for (index, pixel) in frame.pixels.enumerated() {
            bytes[start + 3 * index] = pixel.red
            bytes[start + 3 * index + 1] = pixel.green
            bytes[start + 3 * index + 2] = pixel.blue
        }
        return Data(bytes)
    }
}
