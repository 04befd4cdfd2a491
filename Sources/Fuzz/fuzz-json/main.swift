import FuzzSupport
import JSON

runFuzzer { bytes in
    _ = try? JSONParser.parse(bytes)
}
