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
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var threads: [pthread_t] = []
    private let count: Int

    init(threads count: Int) {
        self.count = max(1, count)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        wake = .allocate(capacity: 1)
        wake.initialize(to: pthread_cond_t())
        pthread_cond_init(wake, nil)
    }

    deinit {
        pthread_cond_destroy(wake)
        wake.deinitialize(count: 1)
        wake.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Starts the threads.
    /// - Throws: `HTTPServerError.libevent` when a thread cannot be created (those created are
    ///   stopped again).
    func start() throws {
        for _ in 0..<count {
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setstacksize(&attributes, 8 << 20)
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(&thread, &attributes, offloadThreadEntry, context)
            guard status == 0 else {
                Unmanaged<OffloadPool>.fromOpaque(context).release()
                stop()
                throw HTTPServerError.libevent("pthread_create failed: \(errnoDescription(status))")
            }
            locked { threads.append(thread) }
        }
    }

    /// Queues `job`. Returns false (and drops it) once ``stop()`` has begun.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        locked {
            guard !stopping else { return false }
            queue.append(job)
            pthread_cond_signal(wake)
            return true
        }
    }

    /// Waits for the running jobs, drops the queued ones, joins the threads. Idempotent.
    func stop() {
        let joining = locked { () -> [pthread_t] in
            stopping = true
            queue.removeAll()
            head = 0
            pthread_cond_broadcast(wake)
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
        locked {
            while !stopping && head == queue.count { pthread_cond_wait(wake, mutex) }
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

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

private func offloadThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let pool = Unmanaged<OffloadPool>.fromOpaque(context!).takeRetainedValue()
    pool.runJobs()
    return nil
}
