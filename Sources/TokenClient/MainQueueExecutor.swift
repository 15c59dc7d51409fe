import Dispatch

/// Runs the tasks that prefer it on the main queue, where the main actor runs, after what already waits there: work a
/// call waits for on the main actor (its token fetches) then needs no hop to Swift's shared threads and back.
public final class MainQueueExecutor: TaskExecutor {
    public static let shared = MainQueueExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.main.async { job.runSynchronously(on: executor) }
    }
}
