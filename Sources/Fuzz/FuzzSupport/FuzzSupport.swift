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

/// The parts of an input separated by lines holding only `%` (`\n%\n`), which no JSON text contains:
/// the targets that take several bodies (a document and its patches, several requests) read them so.
public func inputParts(_ bytes: UnsafeRawBufferPointer, limit: Int = 64) -> [[UInt8]] {
    let separator: [UInt8] = [0x0A, 0x25, 0x0A]
    var parts: [[UInt8]] = []
    var start = 0, i = 0
    while i + separator.count <= bytes.count, parts.count < limit - 1 {
        if bytes[i] == separator[0] && bytes[i + 1] == separator[1] && bytes[i + 2] == separator[2] {
            parts.append(Array(bytes[start..<i]))
            i += separator.count
            start = i
        } else {
            i += 1
        }
    }
    parts.append(Array(bytes[start...]))
    return parts
}
