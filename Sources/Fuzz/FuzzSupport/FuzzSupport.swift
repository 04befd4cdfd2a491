import CFuzzDriver
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The body of the running fuzz target (one per process, set once by `runFuzzer` before the driver starts).
nonisolated(unsafe) private var fuzzBody: ((UnsafeRawBufferPointer) -> Void)?

/// Runs libFuzzer's driver with the process's arguments, calling `body` with each input; returns the driver's
/// exit status. A failed check calls `fuzzFailure`, which aborts (libFuzzer keeps the input as a crash).
public func runFuzzer(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    fuzzBody = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzBody!(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
    exit(status)
}

/// Reports a broken property and aborts, so that libFuzzer records the input as a crash.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz check failed: \(message)", file: file, line: line)
}

/// `fuzzFailure` unless `condition` holds.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}
