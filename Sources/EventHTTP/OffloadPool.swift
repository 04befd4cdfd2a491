import Primitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads that run the work handlers hand off (``HTTPResponse/offloaded(_:)``), so that a
/// worker's loop goes on serving its other connections while a long request is worked out.
///
/// Jobs run in the order submitted, each on whichever thread is free. ``stop()`` lets the jobs
/// already running finish, drops the ones still queued, and joins the threads.
final class OffloadPool: @unchecked Sendable {
    /// Guards what follows; its condition wakes the threads for a job or for `stop()`.
    private let lock = PThreadLock()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var threads: [pthread_t] = []
    private let count: Int

    init(threads count: Int) {
        self.count = max(1, count)
    }

    /// Starts the threads.
    /// - Throws: `HTTPServerError.libevent` when a thread cannot be created (those created are
    ///   stopped again).
    func start() throws {
        for _ in 0..<count {
            let context = Unmanaged.passRetained(self).toOpaque()
            do {
                let thread = try startThread(offloadThreadEntry, context: context)
                lock.withLock { threads.append(thread) }
            } catch {
                Unmanaged<OffloadPool>.fromOpaque(context).release()
                stop()
                throw error
            }
        }
    }

    /// Queues `job`. Returns false (and drops it) once ``stop()`` has begun.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !stopping else { return false }
            queue.append(job)
            lock.signal()
            return true
        }
    }

    /// Waits for the running jobs, drops the queued ones, joins the threads. Idempotent.
    func stop() {
        let joining = lock.withLock { () -> [pthread_t] in
            stopping = true
            queue.removeAll()
            head = 0
            lock.broadcast()
            defer { threads.removeAll() }
            return threads
        }
        for thread in joining { pthread_join(thread, nil) }
    }

    fileprivate func runJobs() {
        while let job = next() { job() }
    }

    /// The next job, waiting for one; nil when stopping.
    private func next() -> (@Sendable () -> Void)? {
        lock.withLock {
            while !stopping && head == queue.count { lock.wait() }
            guard !stopping else { return nil }
            let job = queue[head]
            head += 1
            // The queue is emptied, not shifted, once everything in it has been taken.
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }
}

private func offloadThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let pool = Unmanaged<OffloadPool>.fromOpaque(context!).takeRetainedValue()
    pool.runJobs()
    return nil
}
