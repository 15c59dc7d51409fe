import Foundation
import PrintableText
import Synchronization
import Timers

/// What a load run measured: latencies by kind, errors by kind, connections lost.
public struct LoadFigures: Sendable {
    /// One latency's samples, summed up.
    public struct Latency: Sendable, Equatable {
        public let count: Int
        public let p50: Duration
        public let p99: Duration

        /// The summary of `samples`; nil when there are none.
        init?(_ samples: [Duration]) {
            guard !samples.isEmpty else { return nil }
            let sorted = samples.sorted()
            count = sorted.count
            p50 = sorted[(sorted.count - 1) / 2]
            p99 = sorted[(sorted.count * 99 + 99) / 100 - 1]
        }
    }

    /// The latencies in the order they are printed, each with its name.
    public let latencies: [(name: String, latency: Latency?)]
    /// Errors by kind ("join refused: invalidToken"), each with how many.
    public let errors: [String: Int]
    public let connectionsLost: Int
    /// The join latency by the hub each client joined on (`HubConnection.hubName`), by name; empty when no join was
    /// answered.
    public var joinsByHub: [(hub: String, latency: Latency?)] = []

    /// Lines for a person: one per latency, then the errors and losses.
    public var text: String {
        // The names in a column as wide as the longest and two spaces, so that no name runs into its figures.
        let width = max(Self.nameColumn, (latencies.map(\.name.count).max() ?? 0) + 2)
        var lines = latencies.map { name, latency in
            let figures = latency.map { "\($0.count) samples  p50 \(Self.milliseconds($0.p50)) ms  p99 \(Self.milliseconds($0.p99)) ms" }
            return name.padding(toLength: width, withPad: " ", startingAt: 0) + (figures ?? "none")
        }
        if joinsByHub.count > 1 {
            for (hub, latency) in joinsByHub {
                let figures = latency.map { "\($0.count) joins  p50 \(Self.milliseconds($0.p50)) ms  p99 \(Self.milliseconds($0.p99)) ms" }
                lines.append("  on hub \(hub.escapedForPrinting): " + (figures ?? "none"))
            }
        }
        lines.append("errors: " + (errors.isEmpty ? "none"
            : errors.sorted { $0.key < $1.key }.map { "\($0.key.escapedForPrinting) ×\($0.value)" }.joined(separator: ", ")))
        lines.append("connections lost: \(connectionsLost)")
        return lines.joined(separator: "\n")
    }

    /// One JSON object: `{"<name>": {"count", "p50Ms", "p99Ms"} or null, ..., "errors": {...}, "connectionsLost"}`, and
    /// `"joinsByHub": {"<hub>": {"count", "p50Ms", "p99Ms"}}` once a join was answered.
    public var json: String {
        var object: [String: Any] = ["errors": errors, "connectionsLost": connectionsLost]
        for (name, latency) in latencies {
            object[name] = latency.map { ["count": $0.count, "p50Ms": Self.milliseconds($0.p50), "p99Ms": Self.milliseconds($0.p99)] }
                ?? NSNull()
        }
        if !joinsByHub.isEmpty {
            object["joinsByHub"] = Dictionary(uniqueKeysWithValues: joinsByHub.map { hub, latency in
                (hub, latency.map { ["count": $0.count, "p50Ms": Self.milliseconds($0.p50), "p99Ms": Self.milliseconds($0.p99)] } as Any? ?? NSNull())
            })
        }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The narrowest the names' column is.
    static let nameColumn = 15

    /// Milliseconds to a tenth.
    static func milliseconds(_ duration: Duration) -> Double {
        duration.millisecondsValue.rounded(toPlaces: 1)
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}

/// Samples and errors gathered from many threads while a run goes on.
final class LoadTally: Sendable {
    private struct State {
        var samples: [String: [Duration]] = [:]
        var errors: [String: Int] = [:]
        var lost = 0
        var joinsByHub: [String: [Duration]] = [:]
    }

    private let state = Mutex(State())
    /// The latencies' names, in the order they are printed.
    let names: [String]

    init(names: [String]) { self.names = names }

    func record(_ name: String, _ latency: Duration) { state.withLock { $0.samples[name, default: []].append(latency) } }
    func record(_ name: String, _ latencies: [Duration]) { state.withLock { $0.samples[name, default: []] += latencies } }
    func error(_ kind: String) { state.withLock { $0.errors[kind, default: 0] += 1 } }
    func lost() { state.withLock { $0.lost += 1 } }

    /// The most hubs told apart; joins on others count under "other hubs".
    static let maxHubs = 64

    /// A join's latency, also under the hub it was answered by.
    func recordJoin(_ latency: Duration, on hub: String?) {
        state.withLock { state in
            state.samples[Measure.join, default: []].append(latency)
            let name = hub ?? "unknown"
            let key = state.joinsByHub[name] != nil || state.joinsByHub.count < Self.maxHubs ? name : "other hubs"
            state.joinsByHub[key, default: []].append(latency)
        }
    }

    var figures: LoadFigures {
        state.withLock { state in
            var figures = LoadFigures(latencies: names.map { ($0, LoadFigures.Latency(state.samples[$0] ?? [])) }, errors: state.errors,
                                      connectionsLost: state.lost)
            figures.joinsByHub = state.joinsByHub.sorted { $0.key < $1.key }.map { ($0.key, LoadFigures.Latency($0.value)) }
            return figures
        }
    }
}
