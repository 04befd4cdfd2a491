import Foundation
import Telemetry

/// The process families Prometheus's client libraries export (`process_*`), read from /proc at
/// scrape time: CPU seconds, resident memory, open and maximum descriptors, start time.
enum ProcessMetrics {
    /// Seconds since 1970 when the process started (read once, at start-up).
    static let startTime: Double = Date().timeIntervalSince1970 - uptime() + bootRelativeStart()

    /// Seconds since boot (/proc/uptime), the clock /proc/self/stat's start time counts on.
    private static func uptime() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
              let first = text.split(separator: " ").first, let seconds = Double(first) else { return 0 }
        return seconds
    }

    static func write(to out: inout PrometheusText) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        out.single("process_cpu_seconds_total", .counter, help: "User and system CPU time spent, in seconds.", cpu)
        if let rss = residentBytes() {
            out.single("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.", rss)
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing's own descriptor is among them.
            out.single("process_open_fds", .gauge, help: "Number of open file descriptors.", Double(max(0, fds.count - 1)))
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            out.single("process_max_fds", .gauge, help: "Maximum number of open file descriptors.", Double(limit.rlim_cur))
        }
        out.single("process_start_time_seconds", .gauge, help: "Start time of the process since unix epoch in seconds.",
                   startTime)
    }

    /// Resident set size from /proc/self/statm (pages × page size).
    static func residentBytes() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's start after boot (field 22 of /proc/self/stat, clock ticks), in seconds, less
    /// the uptime it is compared with: `now - uptime + start` is the start on the wall clock.
    private static func bootRelativeStart() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return 0 }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
