import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` every 20 ms until it holds or `seconds` pass; answers whether it held.
func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}
