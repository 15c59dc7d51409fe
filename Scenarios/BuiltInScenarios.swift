/// The scenarios `tokencall test` knows by name: the `.scenario` files beside this one, embedded as they are.
public enum BuiltInScenarios {
    /// Each built-in's name and text, in the order `--list` shows them.
    public static let all: [(name: String, text: [UInt8])] = [
        ("renews-before-expiry", PackageResources.renews_before_expiry_scenario),
        ("recovers-after-expiry", PackageResources.recovers_after_expiry_scenario),
        ("network-cut-near-expiry", PackageResources.network_cut_near_expiry_scenario),
        ("server-outage-during-renewal", PackageResources.server_outage_during_renewal_scenario),
        ("stale-token-refused", PackageResources.stale_token_refused_scenario),
        ("wrong-channel-token", PackageResources.wrong_channel_token_scenario),
        ("user-account", PackageResources.user_account_scenario),
        ("two-in-a-hub", PackageResources.two_in_a_hub_scenario),
    ]
}
