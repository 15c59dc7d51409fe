/// Shell completion and the man page, generated from the command table: a shell knows every option without a second copy.
extension Command {
    /// Every command below this one with its path from the top (`[]` for this one), depth first.
    private func descendants(_ path: [String] = []) -> [(path: [String], command: Command)] {
        [(path, self)] + subcommands.flatMap { $0.descendants(path + [$0.name]) }
    }

    /// The options a line at this command may give: its own, or, where a line naming no subcommand runs the default
    /// one, that one's too.
    private var completedOptions: [Option] {
        options + (defaultSubcommand.flatMap(subcommand(named:))?.options ?? [])
    }

    /// The shell function completion runs: `_tokencall`.
    private var function: String { "_" + name.map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined() }

    /// The `case` pattern of every command path below this one (`'join'|'token'|'token build'|…`), which completion
    /// walks the words already typed along.
    private var pathPattern: String { descendants().dropFirst().map { shellQuoted($0.path.joined(separator: " ")) }.joined(separator: "|") }

    /// A bash completion script: `source <(tokencall completion bash)`.
    public func bashCompletion() -> String {
        var lines = [
            "# bash completion for \(name), generated from its command table (\(name) completion bash)",
            "\(function)() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=\"\" word words=\"\" files=\"\" i",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=\"${path:+$path }${COMP_WORDS[i]}\"",
            "        case \"$word\" in",
            "            \(pathPattern)) path=\"$word\" ;;",
            "        esac",
            "    done",
            "    case \"$path:$prev\" in",
        ]
        for (path, command) in descendants() {
            let key = path.joined(separator: " ")
            for option in command.completedOptions where option.placeholder != nil {
                let pattern = shellQuoted("\(key):--\(option.name)")
                if !option.choices.isEmpty {
                    lines.append("        \(pattern)) words=\(shellQuoted(option.choices.joined(separator: " "))) ;;")
                } else if option.takesPath {
                    lines.append("        \(pattern)) files=1 ;;")
                } else {
                    lines.append("        \(pattern)) return ;;")
                }
            }
        }
        lines += [
            "        *)",
            "            case \"$path\" in",
        ]
        for (path, command) in descendants() {
            let options = command.completedOptions.map { "--" + $0.name } + ["--help"]
            let words = cur(startsWithDash: options, subcommands: command.subcommands.map(\.name))
            let files = command.positionals.isEmpty ? "" : " files=1;"
            lines.append("                \(shellQuoted(path.joined(separator: " ")))) words=\(words);\(files) ;;")
        }
        lines += [
            "            esac ;;",
            "    esac",
            "    if [[ -n $files && $cur != -* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); words=\"\"; fi",
            "    COMPREPLY+=($(compgen -W \"$words\" -- \"$cur\"))",
            "}",
            "complete -o default -F \(function) \(name)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The words bash offers: the options where the word being completed starts with `-`, else the subcommands.
    private func cur(startsWithDash options: [String], subcommands: [String]) -> String {
        "\"$([[ $cur == -* ]] && echo \(shellQuoted(options.joined(separator: " "))) || echo \(shellQuoted(subcommands.joined(separator: " "))))\""
    }

    /// A zsh completion script: save it as `_tokencall` in a directory of `$fpath`, or `source <(tokencall completion zsh)`.
    public func zshCompletion() -> String {
        var lines = [
            "#compdef \(name)",
            "# zsh completion for \(name), generated from its command table (\(name) completion zsh)",
            "\(function)() {",
            "    local path_=\"\" word candidate",
            "    for word in \"${(@)words[2,CURRENT-1]}\"; do",
            "        candidate=\"${path_:+$path_ }$word\"",
            "        case \"$candidate\" in",
            "            \(pathPattern)) path_=\"$candidate\" ;;",
            "        esac",
            "    done",
            "    case \"$path_\" in",
        ]
        for (path, command) in descendants() {
            var specs = command.completedOptions.map { option -> String in
                let help = "[\(zshEscaped(option.help))]"
                guard let placeholder = option.placeholder else { return shellQuoted("--\(option.name)\(help)") }
                let action = !option.choices.isEmpty ? "(\(option.choices.joined(separator: " ")))" : option.takesPath ? "_files" : " "
                return shellQuoted("--\(option.name)\(help):\(zshEscaped(placeholder)):\(action)")
            }
            specs.append(shellQuoted("--help[show this help]"))
            if !command.subcommands.isEmpty {
                let described = command.subcommands.map { "\($0.name)\\:\"\(zshEscaped(shellFree($0.summary)))\"" }
                specs.append(shellQuoted("1:command:((\(described.joined(separator: " "))))"))
            } else if !command.positionals.isEmpty {
                specs.append(shellQuoted("*:argument:_files"))
            }
            lines.append("        \(shellQuoted(path.joined(separator: " ")))) _arguments \(specs.joined(separator: " ")) ;;")
        }
        lines += ["    esac", "}", "compdef \(function) \(name) 2>/dev/null || \(function) \"$@\""]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A man page (roff) of every command and its options: `tokencall help --man | man -l -`.
    public func manPage(version: String) -> String {
        var lines = [
            ".TH \(roff(name.uppercased())) 1 \"\" \"\(roff(name)) \(roff(version))\" \"User Commands\"",
            ".SH NAME", "\(roff(name)) \\- \(roff(summary))",
            ".SH SYNOPSIS", ".B \(roff(name))", ".I command", "[\\fIoptions\\fR]",
        ]
        for (path, command) in descendants() where command.run != nil || !command.options.isEmpty {
            lines += [".SH \(roff(([name] + path).joined(separator: " ").uppercased()))", roff(command.summary)]
            if !command.positionals.isEmpty {
                lines += command.positionals.flatMap { [".TP", "\\fI\(roff($0.name))\\fR", roff($0.help)] }
            }
            for option in command.options {
                lines += [".TP", "\\fB\(roff("--" + option.name))\\fR" + (option.placeholder.map { " \\fI\(roff($0))\\fR" } ?? ""),
                          roff(option.fullHelp)]
            }
            if let epilogue = command.epilogue {
                lines += [".PP"] + epilogue.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? ".PP" : roff(String($0)) }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Option {
    /// Whether the value names a file or directory, which completion offers.
    var takesPath: Bool { placeholder.map { $0.hasPrefix("FILE") || $0.hasPrefix("DIR") || $0.hasSuffix("FILE") } ?? false }
}

/// `text` in single quotes for a shell.
private func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
}

/// Text without the characters a zsh description in `((…))` would read as syntax.
private func shellFree(_ text: String) -> String {
    String(text.filter { !"()\"`$\\".contains($0) })
}

/// Text for inside an `_arguments` spec: its brackets and colons escaped.
private func zshEscaped(_ text: String) -> String {
    text.reduce(into: "") { out, character in
        if "[]:\\".contains(character) { out.append("\\") }
        out.append(character)
    }
}

/// Text for a roff line: backslashes and hyphens escaped, and a leading `.` or `'` kept from being a request.
private func roff(_ text: String) -> String {
    let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    return escaped.first == "." || escaped.first == "'" ? "\\&" + escaped : escaped
}
