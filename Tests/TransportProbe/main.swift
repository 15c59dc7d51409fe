// Runs URLSessionTransport in a process of its own, so a test can watch it against a server that crashes
// FoundationNetworking without the test process dying with it. Prints one line saying how the exchange ended.
// Started by a ChildProcessTransport, it is that transport's child instead.
//
//   transport-probe URL                       one POST: "HTTP <status>, <n> bytes" or "error: <description>"
//   transport-probe URL cancel-at-start N     N POSTs, each cancelled as it starts: "<N> cancelled"
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TokenClient

@main struct TransportProbe {
    static func main() async {
        await ChildProcessTransport.answerIfChild()
        let arguments = CommandLine.arguments.dropFirst()
        guard let text = arguments.first, let url = URL(string: text) else {
            FileHandle.standardError.write(Data("usage: transport-probe URL [cancel-at-start N]\n".utf8))
            exit(64)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"channelName":"probe","uid":1}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if arguments.dropFirst().first == "cancel-at-start", let count = arguments.dropFirst(2).first.flatMap({ Int($0) }) {
            for _ in 0..<count {
                let fetch = Task { try await URLSessionTransport().send(request, bodyLimit: 65536) }
                fetch.cancel()
                _ = try? await fetch.value
            }
            print("\(count) cancelled")
            return
        }
        do {
            let (body, response) = try await URLSessionTransport().send(request, bodyLimit: 65536)
            print("HTTP \(response.statusCode), \(body.count) bytes")
        } catch {
            print("error: \(error)")
        }
    }
}
