import Foundation
import PackagePlugin

/// Makes each `.js` file of a target a Swift string at build time (`static let <name>Script` on an `EmbeddedJavaScript`
/// enum), so the script stays a file that editors, linters and `node --check` read, and the binary stays one file.
@main struct EmbedJavaScript: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        return target.sourceFiles(withSuffix: "js").map { file in
            let name = file.url.deletingPathExtension().lastPathComponent.filter { $0.isLetter || $0.isNumber }
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name).js.swift")
            // A raw string whose delimiter no script holds; its closing line at column 0, so nothing is stripped.
            let script = ######"""
                { printf '/// %s, read at build time.\nextension EmbeddedJavaScript {\n    static let %s = #####"""\n' "${1##*/}" "$3"
                  cat "$1"; printf '"""#####\n}\n'; } > "$2"
                """######
            return .buildCommand(displayName: "Embedding \(file.url.lastPathComponent)",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: ["-c", script, "sh", file.url.path, output.path, name],
                                 inputFiles: [file.url], outputFiles: [output])
        }
    }
}
