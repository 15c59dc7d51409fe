import Dispatch

/// Runs tasks that prefer it on the main thread, after what already waits there.
public final class MainQueueExecutor: TaskExecutor {
    public static let shared = MainQueueExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.main.async { job.runSynchronously(on: executor) }
    }
}
