extension Command {
    /// The help text of this command at the top.
    public var usageText: String { usage(path: [name]) }

    /// The help text, generated from the table.
    func usage(path: [String]) -> String {
        let invocation = path.joined(separator: " ")
        var lines: [String] = []
        if !subcommands.isEmpty, positionals.isEmpty {
            lines.append("usage: \(invocation) <command> [options]")
        } else {
            var words = [invocation]
            for option in options where option.isRequired && option.environment.isEmpty {
                words.append("--\(option.name) \(option.placeholder ?? "")".trimmingTrailingSpace())
            }
            words += positionals.map { ($0.isRequired ? $0.name : "[\($0.name)]") + ($0.repeats ? "..." : "") }
            if options.contains(where: { !($0.isRequired && $0.environment.isEmpty) }) { words.append("[options]") }
            lines.append("usage: " + words.joined(separator: " "))
        }
        lines += ["", summary]

        if !subcommands.isEmpty {
            lines += ["", "commands:"]
            let rows = subcommands.flatMap { sub in
                sub.subcommands.isEmpty ? [(sub.name, sub.summary)] : sub.subcommands.map { ("\(sub.name) \($0.name)", $0.summary) }
            }
            lines += table(rows)
            lines += ["", "Run '\(invocation) <command> --help' for a command's options."]
        }
        if !positionals.isEmpty {
            lines += ["", "arguments:"]
            lines += table(positionals.map { ($0.name, $0.help) })
        }
        var rows = options.map { ($0.synopsis, $0.fullHelp) }
        rows.append(("-h, --help", "show this help"))
        if path.count == 1 { rows.append(("--version", "print the version")) }
        lines += ["", "options:"]
        lines += table(rows)
        if let epilogue { lines += ["", epilogue] }
        return lines.joined(separator: "\n")
    }

    private func table(_ rows: [(String, String)]) -> [String] {
        let width = min(28, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { left, right in
            let pad = left.count + 2 <= width ? String(repeating: " ", count: width - left.count) : "\n  " + String(repeating: " ", count: width)
            return "  " + left + pad + right
        }
    }
}

extension Option {
    /// `--name PLACEHOLDER`, or `--name` for a flag.
    var synopsis: String { "--\(name)" + (placeholder.map { " " + $0 } ?? "") }

    /// The help with its default, environment variables and whether it is required, as usage and the man page show it.
    var fullHelp: String {
        var help = help
        if let value = defaultValue ?? defaultNote { help += " (default \(value))" }
        if !environment.isEmpty { help += " [env \(environment.joined(separator: ", "))]" }
        if isRequired { help += " (required)" }
        return help
    }
}
