import Foundation

/// A folder of its own for a test's files, removed when the test's value goes.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "access-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` through a new file renamed over it, so that a reader sees the old
    /// file or the new one, never an empty or half-written one.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)), options: .atomic)
        return file(name)
    }

    /// Appends `text` to `name` in place (one write: the same inode, a new size).
    func append(_ name: String, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file(name)))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }
}
