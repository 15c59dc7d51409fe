import AccessToken
import Arguments

/// `--misconfigure KIND`, the same for `join`'s embedded server and for `serve`.
enum MisconfigureOption {
    static let option = Option.value(
        "misconfigure", "KIND",
        help: "after each caller's first token, hand out wrong ones on purpose: "
            + TokenMistake.allCases.map(\.rawValue).joined(separator: ", "))

    static func read(_ args: Invocation) throws(UsageError) -> TokenMistake? {
        try args.choice(option.name, TokenMistake.allCases, word: \.rawValue)
    }
}
