import Dispatch
import GuideHarness

// What UIKit does: make the view controller and load its view on the main thread, and when the view goes away,
// leave. The guide's viewDidDisappear leaves and destroys at once, and the SDK drops didLeaveChannelWith when
// destroy follows leaveChannel straight away, so this app leaves first and destroys a second later.
// `--one-uid` runs the copy with the guide's uid slip fixed; `--renewal-slip` fixes the join's token only.
MainActor.assumeIsolated {
    let arguments = CommandLine.arguments
    let viewController = arguments.contains("--one-uid") ? OneUidViewController()
        : arguments.contains("--renewal-slip") ? RenewalSlipViewController() : ViewController()
    Guide.run(
        appear: { viewController.viewDidLoad() },
        disappear: { viewController.leaveChannel() },
        destroy: { viewController.destroy() }
    )
}
