import Foundation

/// The official vectors (../shared/vectors/accesstoken2.json, copied into Fixtures/).
struct Vectors: Decodable {
    struct Fixtures: Decodable {
        let app_id: String
        let app_certificate: String
        let channel_name: String
        let uid: UInt32
        let issue_ts: UInt32
        let salt: UInt32
        let expire: UInt32
    }

    struct V007: Decodable, Sendable {
        let name: String
        let uid: UInt32?
        let privileges: [String: UInt32]?
        let parse_only: Bool?
        let token: String
        let signature_hex: String?
    }

    struct V006: Decodable, Sendable {
        let name: String
        let uid: UInt32
        let salt: UInt32
        let ts: UInt32
        let privileges: [String: UInt32]
        let token: String
    }

    let fixtures: Fixtures
    let v007: [V007]
    let v006: [V006]

    static let shared: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/accesstoken2.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()
}

