#if canImport(Glibc)
import Glibc
#endif
import CMemoryProbe
import Foundation

/// Memory at a phase boundary of the cold pipeline (`profile` case): the bytes the allocator has
/// handed out and not had back (live), the process's resident set, and the highest resident set
/// since the previous boundary (peak).
///
/// Live bytes come from glibc's `mallinfo2` (every arena, plus mmapped blocks): layout-bench runs
/// on glibc's malloc (only the daemon links mimalloc), so they count exactly what the pipeline's
/// values hold, whatever the allocator keeps cached. RSS and its peak come from /proc/self/status;
/// writing 5 to /proc/self/clear_refs resets the peak (VmHWM) so that each phase gets its own.
struct MemoryProbe {
    struct Sample {
        var liveBytes: Int
        var rssKiB: Int
        var peakKiB: Int
    }

    /// False where there is no /proc or no per-phase peak reset: the figures are then left out.
    let available: Bool

    init() {
        available = FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")
            && FileManager.default.fileExists(atPath: "/proc/self/status")
    }

    /// Starts a phase: the peak from here on is this phase's.
    func begin() {
        guard available else { return }
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return }
        _ = "5".withCString { write(fd, $0, 1) }
        close(fd)
    }

    /// Ends a phase (and, when `restart`, starts the next one).
    func sample(restart: Bool = true) -> Sample {
        var s = Sample(liveBytes: Self.liveBytes(), rssKiB: 0, peakKiB: 0)
        if available, let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                if line.hasPrefix("VmRSS:") { s.rssKiB = Self.kib(line) }
                if line.hasPrefix("VmHWM:") { s.peakKiB = Self.kib(line) }
            }
        }
        if restart { begin() }
        return s
    }

    static func liveBytes() -> Int { Int(layout_bench_live_bytes()) }

    private static func kib(_ line: Substring) -> Int {
        Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
