/// A value that belongs to one event loop's thread, carried by closures other threads hold: it is reached only on that
/// thread, and reaching it anywhere else traps. Unchecked because that rule is checked at run time, at every access.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let held: Value

    /// Binds `value`, which the loop's code reaches, to `loop`: made on its thread.
    public init(_ value: Value, on loop: EventLoop) {
        precondition(loop.inLoop, "a value was bound to the loop \(loop.name) from another thread")
        self.loop = loop
        held = value
    }

    /// Binds `value` to `loop` from any thread: `sending`, so nothing else keeps it.
    public init(handing value: sending Value, to loop: EventLoop) {
        self.loop = loop
        held = value
    }

    /// The value, on its loop's thread only.
    public var value: Value {
        precondition(loop.inLoop, "a value of the loop \(loop.name) was reached from another thread")
        return held
    }
}
