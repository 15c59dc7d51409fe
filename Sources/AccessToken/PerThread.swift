#if canImport(Glibc)
import Glibc
#endif

/// An object of each thread's own, made at the thread's first use and released when the thread ends: a cache the
/// token paths reach without a lock, which no other thread ever sees (so it need not be `Sendable`).
struct PerThread<Object: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Object

    init(_ make: @escaping @Sendable () -> Object) {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0!).release() }
        precondition(made == 0, "pthread_key_create failed: \(made)")
        self.key = key
        self.make = make
    }

    /// This thread's object.
    var object: Object {
        if let kept = pthread_getspecific(key) { return Unmanaged<Object>.fromOpaque(kept).takeUnretainedValue() }
        let object = make()
        pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
        return object
    }
}
